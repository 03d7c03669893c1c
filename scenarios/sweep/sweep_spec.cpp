#include "scenarios/sweep/sweep_spec.hpp"

#include <filesystem>
#include <set>
#include <sstream>

#include "scenarios/sweep/axis_range.hpp"
#include "scenarios/sweep/quantity.hpp"
#include "scenarios/sweep/sweep_results.hpp"

namespace fs = std::filesystem;

namespace scen::sweep {
namespace {

std::string in_quotes(const std::string& s) {
  return "\"" + s + "\"";
}

// Names and paths end up in CSV headers and in "path=value" assignments: keep them plain.
bool plain_token(const std::string& s) {
  if (s.empty()) return false;
  for (const char c : s) {
    if (c == ',' || c == '"' || c == '=' || c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      return false;
    }
  }
  return true;
}

Axis read_axis(JsonReader r) {
  r.expect_object();
  Axis a;
  a.json_path = r.path();
  a.path = r.string("path");
  if (!plain_token(a.path)) {
    throw InputError(r.child_path("path"), in_quotes(a.path),
                     "a JSON path such as \"fabric.ecn.kmin\" or \"topology.links[3].rate\"");
  }
  // The axis's column is named after its path unless named; an axis on the seed cannot take
  // the name of the point's own seed column.
  a.name = r.string("name", a.path == "seed" ? "base_seed" : a.path);
  if (!plain_token(a.name)) {
    throw InputError(r.child_path("name"), in_quotes(a.name),
                     "a name without spaces, commas, quotes or '='");
  }
  if (is_reserved_column(a.name)) {
    throw InputError(r.child_path("name"), in_quotes(a.name),
                     "a name that is not one of results.csv's own columns" +
                         std::string(a.path == "seed" ? " (an axis on the seed is named base_seed "
                                                        "unless named)"
                                                      : ""));
  }
  const bool has_values = r.has("values"), has_range = r.has("range");
  if (has_values == has_range) {
    throw InputError(r.path(), "", "exactly one of \"values\" (a list) or \"range\"");
  }
  if (has_values) {
    JsonReader v = r.at("values");
    v.expect_array();
    if (v.size() == 0) throw InputError(v.path(), "[]", "at least one value");
    for (size_t i = 0; i < v.size(); ++i) {
      if (v.element(i).json().is_null()) {
        throw InputError(v.index_path(i), "null", "a value (a --set value is never null)");
      }
      a.values.push_back(v.element(i).json());
    }
  } else {
    JsonReader range = r.at("range");
    a.values = expand_range(range);
  }
  r.finish();
  return a;
}

Constraint::Operand read_operand(const std::string& token, const std::vector<Axis>& axes,
                                 const std::string& path, const std::string& text) {
  Constraint::Operand o;
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i].name == token) {
      o.axis = static_cast<int>(i);
      return o;
    }
  }
  Json literal = parse_cli_value(token, path);  // "64MB" is written bare, as in --set
  if (!parse_quantity(literal)) {
    std::string names;
    for (const auto& a : axes) names += (names.empty() ? "" : ", ") + a.name;
    throw InputError(path, in_quotes(text),
                     "\"LEFT OP RIGHT\" where " + in_quotes(token) + " would be an axis name (" +
                         names + ") or an integer or quantity");
  }
  o.literal = literal;
  return o;
}

Constraint read_constraint(JsonReader r, const std::vector<Axis>& axes) {
  r.expect_object();
  Constraint c;
  c.json_path = r.path();
  const bool has_skip = r.has("skip"), has_require = r.has("require");
  if (has_skip == has_require) {
    throw InputError(r.path(), r.json().dump(),
                     "{\"skip\": {AXIS: VALUE, ...}} or {\"require\": \"AXIS OP AXIS|VALUE\"}");
  }
  if (has_skip) {
    c.kind = Constraint::Kind::Skip;
    JsonReader s = r.at("skip");
    s.expect_object();
    if (s.json().empty()) throw InputError(s.path(), "{}", "at least one AXIS: VALUE");
    for (auto it = s.json().begin(); it != s.json().end(); ++it) {
      size_t index = axes.size();
      for (size_t i = 0; i < axes.size(); ++i) {
        if (axes[i].name == it.key()) index = i;
      }
      if (index == axes.size()) {
        throw InputError(s.child_path(it.key()), it.value().dump(), "the name of an axis");
      }
      c.skip.emplace_back(index, it.value());
    }
    c.text = s.json().dump();
  } else {
    c.kind = Constraint::Kind::Require;
    c.text = r.string("require");
    const std::string path = r.child_path("require");
    std::istringstream in(c.text);
    std::vector<std::string> tokens;
    for (std::string t; in >> t;) tokens.push_back(t);
    static const std::set<std::string> kOps = {"<", "<=", ">", ">=", "==", "!="};
    if (tokens.size() != 3 || kOps.count(tokens[1]) == 0) {
      throw InputError(path, in_quotes(c.text),
                       "\"LEFT OP RIGHT\" separated by spaces, OP one of < <= > >= == !=");
    }
    c.left = read_operand(tokens[0], axes, path, c.text);
    c.op = tokens[1];
    c.right = read_operand(tokens[2], axes, path, c.text);
    if (c.left.axis < 0 && c.right.axis < 0) {
      throw InputError(path, in_quotes(c.text), "at least one operand naming an axis");
    }
  }
  r.finish();
  return c;
}

}  // namespace

SweepSpec read_sweep_file(const std::string& file) {
  const Json root = read_json_file(file);
  return read_sweep_json(root, fs::path(file).parent_path().string(), file);
}

SweepSpec read_sweep_json(const Json& root, const std::string& dir,
                          const std::string& source_file) {
  const std::string base_dir = dir.empty() ? "." : dir;
  JsonReader r(root, "");
  r.expect_object();
  SweepSpec spec;
  spec.source_file = source_file;
  spec.name =
      r.string("name", source_file.empty() ? "sweep" : fs::path(source_file).stem().string());
  if (!plain_token(spec.name) || spec.name.find('/') != std::string::npos) {
    throw InputError("name", in_quotes(spec.name),
                     "a non-empty name without '/', spaces or commas");
  }
  r.string("description", "");

  JsonReader base = r.at("base");
  if (base.json().is_string()) {
    const fs::path p = fs::path(base_dir) / base.json().get<std::string>();
    try {
      spec.base = read_json_file(p.string());
    } catch (const InputError& e) {
      throw InputError("base", in_quotes(base.json().get<std::string>()),
                       "a readable scenario file (" + std::string(e.what()) + ")");
    }
    spec.base_file = p.string();
    spec.base_dir = p.parent_path().string();
  } else if (base.json().is_object()) {
    spec.base = base.json();
    spec.base_dir = base_dir;
  } else {
    throw InputError("base", r.value_text("base"),
                     "a scenario file path (relative to the sweep file) or an inline scenario");
  }
  if (!spec.base.is_object()) {
    throw InputError("base", spec.base.dump().substr(0, 60), "a scenario (a JSON object)");
  }
  if (spec.base.contains("seed")) {
    const Json& seed = spec.base["seed"];
    if (!seed.is_number_integer() || (seed.is_number_integer() && seed.get<int64_t>() < 0)) {
      throw InputError("base.seed", seed.dump(), "a non-negative integer");
    }
    spec.base_seed = seed.get<uint64_t>();
  }

  JsonReader axes = r.at("axes");
  axes.expect_array();
  if (axes.size() == 0) throw InputError("axes", "[]", "at least one axis");
  std::set<std::string> names, paths;
  for (size_t i = 0; i < axes.size(); ++i) {
    Axis a = read_axis(axes.element(i));
    if (!names.insert(a.name).second) {
      throw InputError(a.json_path + ".name", in_quotes(a.name), "a name no other axis has");
    }
    if (!paths.insert(a.path).second) {
      throw InputError(a.json_path + ".path", in_quotes(a.path),
                       "a path no other axis sets (one value per point)");
    }
    spec.axes.push_back(std::move(a));
  }
  const std::string mode = r.choice("mode", {"product", "zip"}, "product");
  spec.mode = mode == "zip" ? CombineMode::Zip : CombineMode::Product;
  if (spec.mode == CombineMode::Zip) {
    for (const auto& a : spec.axes) {
      if (a.values.size() != spec.axes[0].values.size()) {
        throw InputError(a.json_path, std::to_string(a.values.size()) + " values",
                         std::to_string(spec.axes[0].values.size()) +
                             " values, as many as axes[0] (mode \"zip\" pairs them up)");
      }
    }
  }
  spec.repeats = static_cast<int>(r.integer("repeats", 1, 1, 100000));
  if (auto cs = r.get("constraints")) {
    cs->expect_array();
    for (size_t i = 0; i < cs->size(); ++i) {
      spec.constraints.push_back(read_constraint(cs->element(i), spec.axes));
    }
  }
  r.finish();
  return spec;
}

}  // namespace scen::sweep
