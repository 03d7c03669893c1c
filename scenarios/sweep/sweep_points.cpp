#include "scenarios/sweep/sweep_points.hpp"

#include "scenarios/sweep/quantity.hpp"
#include "sim/rng.hpp"

namespace scen::sweep {
namespace {

// Equal as quantities when both are ("0.4MB" == "400KB"), else as JSON.
bool same_value(const Json& a, const Json& b) {
  const auto qa = parse_quantity(a), qb = parse_quantity(b);
  if (qa && qb && qa->kind == qb->kind) return qa->value == qb->value;
  return a == b;
}

const Json& operand_value(const Constraint::Operand& o, const std::vector<Json>& values) {
  return o.axis >= 0 ? values[static_cast<size_t>(o.axis)] : o.literal;
}

bool compare(const Constraint& c, const std::vector<Json>& values) {
  const Json& l = operand_value(c.left, values);
  const Json& r = operand_value(c.right, values);
  const auto ql = parse_quantity(l), qr = parse_quantity(r);
  if (!ql || !qr || ql->kind != qr->kind) {
    if (c.op == "==") return same_value(l, r);
    if (c.op == "!=") return !same_value(l, r);
    throw InputError(c.json_path + ".require",
                     "\"" + c.text + "\" with " + value_text(l) + " and " + value_text(r),
                     "two values of the same kind (integers, durations, rates or sizes)");
  }
  const int64_t a = ql->value, b = qr->value;
  if (c.op == "<") return a < b;
  if (c.op == "<=") return a <= b;
  if (c.op == ">") return a > b;
  if (c.op == ">=") return a >= b;
  if (c.op == "==") return a == b;
  return a != b;
}

bool kept(const SweepSpec& spec, const std::vector<Json>& values) {
  for (const auto& c : spec.constraints) {
    if (c.kind == Constraint::Kind::Skip) {
      bool all = true;
      for (const auto& [axis, v] : c.skip) all = all && same_value(values[axis], v);
      if (all) return false;
    } else if (!compare(c, values)) {
      return false;
    }
  }
  return true;
}

}  // namespace

uint64_t point_seed(uint64_t base_seed, int repeat) {
  // A scenario seed is a non-negative signed 64-bit integer: keep the derived seed's top 63
  // bits.
  return repeat == 0 ? base_seed : sim::derive_seed(base_seed, static_cast<uint64_t>(repeat)) >> 1;
}

std::vector<SweepPoint> expand_points(const SweepSpec& spec) {
  size_t combinations = spec.axes[0].values.size();
  if (spec.mode == CombineMode::Product) {
    for (size_t a = 1; a < spec.axes.size(); ++a) {
      const size_t n = spec.axes[a].values.size();
      if (combinations > kMaxPoints / n)
        combinations = kMaxPoints + 1;
      else
        combinations *= n;
    }
  }
  if (combinations > kMaxPoints / static_cast<size_t>(spec.repeats)) {
    throw InputError("axes", "more than " + std::to_string(kMaxPoints) + " points",
                     "a sweep of at most " + std::to_string(kMaxPoints) + " points");
  }
  int seed_axis = -1;
  for (size_t a = 0; a < spec.axes.size(); ++a) {
    if (spec.axes[a].path == "seed") seed_axis = static_cast<int>(a);
  }
  std::vector<SweepPoint> points;
  std::vector<Json> values(spec.axes.size());
  for (size_t c = 0; c < combinations; ++c) {
    // Product: mixed-radix digits of c, the last axis fastest. Zip: the c-th of each.
    size_t rest = c;
    for (size_t a = spec.axes.size(); a-- > 0;) {
      const auto& vs = spec.axes[a].values;
      if (spec.mode == CombineMode::Zip) {
        values[a] = vs[c];
      } else {
        values[a] = vs[rest % vs.size()];
        rest /= vs.size();
      }
    }
    if (!kept(spec, values)) continue;
    uint64_t base_seed = spec.base_seed;
    if (seed_axis >= 0) {
      const Json& v = values[static_cast<size_t>(seed_axis)];
      if (!v.is_number_integer() || v.get<int64_t>() < 0) {
        throw InputError(spec.axes[static_cast<size_t>(seed_axis)].json_path, v.dump(),
                         "non-negative integer seeds");
      }
      base_seed = v.get<uint64_t>();
    }
    for (int r = 0; r < spec.repeats; ++r) {
      SweepPoint p;
      p.id = points.size();
      p.values = values;
      p.repeat = r;
      p.seed = point_seed(base_seed, r);
      points.push_back(std::move(p));
    }
  }
  if (points.empty()) {
    throw InputError("constraints", std::to_string(combinations) + " combinations, all dropped",
                     "constraints that leave at least one point");
  }
  return points;
}

std::vector<std::string> point_assignments(const SweepSpec& spec, const SweepPoint& p) {
  std::vector<std::string> sets;
  for (size_t a = 0; a < spec.axes.size(); ++a) {
    // The value as JSON text: apply_set parses it back to exactly this value.
    sets.push_back(spec.axes[a].path + "=" + p.values[a].dump());
  }
  return sets;
}

std::string point_label(const SweepSpec& spec, const SweepPoint& p) {
  std::string label;
  for (size_t a = 0; a < spec.axes.size(); ++a) {
    label += (a == 0 ? "" : " ") + spec.axes[a].name + "=" + value_text(p.values[a]);
  }
  if (spec.repeats > 1) label += " repeat=" + std::to_string(p.repeat);
  return label;
}

Scenario load_point(const SweepSpec& spec, const SweepPoint& p, int64_t max_memory_bytes) {
  LoadOptions lo;
  lo.max_memory_bytes = max_memory_bytes;
  lo.sets = point_assignments(spec, p);
  lo.has_seed = true;
  lo.seed = p.seed;
  const std::string where = "point " + std::to_string(p.id) + " (" + point_label(spec, p) + ")";
  try {
    return load_scenario_json(spec.base, spec.base_dir, lo, spec.base_file);
  } catch (const InputError& e) {
    // Name the axis whose value was refused, when the refusal is at (or under) its path.
    std::string axis;
    for (size_t a = 0; a < spec.axes.size(); ++a) {
      const std::string& ap = spec.axes[a].path;
      const std::string set_path = "--set " + ap;
      if (e.path == ap || e.path.rfind(ap + ".", 0) == 0 || e.path.rfind(ap + "[", 0) == 0 ||
          e.path == set_path) {
        axis = " axis " + spec.axes[a].name + " =" + " " + value_text(p.values[a]) + ":";
      }
    }
    throw InputError(where + ":" + axis + " " + e.path, e.value, e.expected);
  }
}

}  // namespace scen::sweep
