#include "tools/calibration/small_messages.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/units.hpp"
#include "tools/calibration/cluster.hpp"
#include "tools/calibration/robust_fit.hpp"
#include "tools/calibration/trace_experiments.hpp"

namespace calib {
namespace {

// A latency rise between consecutive traced sizes of at least this ratio is a step (inline
// sends ending), not the wire: below 4 KiB a doubling adds at most a few % of latency.
constexpr double kInlineStepRatio = 1.2;
// Bandwidths the model without a cap overestimates by more than this call for one.
constexpr double kRateCapExcess = 1.1;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

void add_small_message_keys(scen::Json& nic, const SmallMessageParams& p) {
  if (p.inline_threshold_bytes > 0) {
    nic["inline_threshold"] = static_cast<int64_t>(std::llround(p.inline_threshold_bytes));
    nic["inline_saving"] = std::to_string(static_cast<int64_t>(
                               std::llround(std::max(0.0, p.inline_saving_ns) * 1000))) +
                           "ps";
  }
  if (p.message_gap_ns > 0) {
    nic["max_message_rate"] = static_cast<int64_t>(std::llround(1e9 / p.message_gap_ns));
  }
}

SmallMessageParams read_small_message_keys(const scen::Json& nic) {
  SmallMessageParams p;
  if (nic.contains("inline_threshold")) {
    const scen::Json& t = nic.at("inline_threshold");
    p.inline_threshold_bytes = static_cast<double>(
        t.is_string() ? sim::parse_bytes(t.get<std::string>()) : t.get<int64_t>());
    p.inline_saving_ns =
        static_cast<double>(sim::parse_time(nic.at("inline_saving").get<std::string>()).ps) /
        1000.0;
  }
  if (nic.contains("max_message_rate")) {
    const auto rate = nic.at("max_message_rate").get<int64_t>();
    p.message_gap_ns = rate > 0 ? 1e9 / static_cast<double>(rate) : 0;
  }
  return p;
}

std::string describe_small_messages(const SmallMessageParams& p) {
  std::string out;
  char buf[160];
  if (p.inline_threshold_bytes > 0) {
    std::snprintf(buf, sizeof buf, "inline up to %.0f B (saves %.1f ns)", p.inline_threshold_bytes,
                  p.inline_saving_ns);
    out += buf;
  }
  if (p.message_gap_ns > 0) {
    std::snprintf(buf, sizeof buf, "%smessage rate %.3f M/s (%.1f ns apart)",
                  out.empty() ? "" : ", ", 1e3 / p.message_gap_ns, p.message_gap_ns);
    out += buf;
  }
  return out.empty() ? "" : "small messages: " + out;
}

void fit_small_messages(const ClusterSpec& c, std::vector<Experiment>& experiments,
                        int64_t min_bytes, FabricParams& params, std::vector<std::string>& fitted,
                        std::vector<std::string>& notes, int& simulations) {
  // perftest traces only: a collective's small sizes are NCCL's costs' (fitted before).
  auto small_mask = [&](const Experiment& e) {
    if (e.collective) return std::vector<bool>(e.bytes.size(), false);
    std::vector<bool> m;
    for (int64_t b : e.bytes) m.push_back(b < min_bytes);
    return m;
  };
  bool small_lat = false, small_bw = false;
  // Inline sends: the steepest rise between consecutive small latency sizes.
  double best_ratio = 0, threshold = 0, step_us = 0;
  std::vector<double> per_message_ns;  // bandwidth traces: measured time per small message
  for (const Experiment& e : experiments) {
    if (e.collective) continue;
    for (size_t i = 0; i < e.bytes.size(); ++i) {
      if (e.bytes[i] >= min_bytes) continue;
      if (e.latency) {
        small_lat = true;
        if (i + 1 < e.bytes.size() && e.bytes[i + 1] < min_bytes &&
            e.measured[i + 1] / e.measured[i] > best_ratio) {
          best_ratio = e.measured[i + 1] / e.measured[i];
          threshold = static_cast<double>(e.bytes[i]);
          step_us = e.measured[i + 1] - e.measured[i];
        }
      } else {
        small_bw = true;
        per_message_ns.push_back(static_cast<double>(e.bytes[i]) / e.measured[i] * 1e9);
      }
    }
  }
  if (!small_lat && !small_bw) return;
  const bool fit_inline = best_ratio >= kInlineStepRatio;
  char buf[240];
  if (small_lat && !fit_inline) {
    notes.push_back("no latency step between small sizes: no inline sends");
  }
  // The message rate: a cap only where the model without one is too fast.
  bool fit_gap = false;
  if (small_bw) {
    std::vector<double> excess;
    for (Experiment& e : experiments) {
      if (e.latency) continue;
      const std::vector<bool> m = small_mask(e);
      if (std::none_of(m.begin(), m.end(), [](bool b) { return b; })) continue;
      const std::vector<double> sim = simulate(c, params, e, m);
      ++simulations;
      size_t k = 0;
      for (size_t i = 0; i < e.bytes.size(); ++i) {
        if (m[i]) excess.push_back(sim[k++] / e.measured[i]);
      }
    }
    fit_gap = median(excess) > kRateCapExcess;
    if (!fit_gap) notes.push_back("small-size bandwidth within the model: no message-rate cap");
  }
  if (!fit_inline && !fit_gap) return;
  FabricParams p = params;
  if (fit_inline) p.small.inline_threshold_bytes = threshold;
  std::vector<FitParameter> fp = {
      {"inline_saving_ns", step_us * 1000, 0, params.host_latency_ns / 2, 20, fit_inline},
      {"message_gap_ns", median(per_message_ns), 1, 100'000, 5, fit_gap}};
  const ResidualFn fn = [&](const std::vector<double>& v) {
    FabricParams q = p;
    q.small.inline_saving_ns = fit_inline ? v[0] : 0;
    q.small.message_gap_ns = fit_gap ? v[1] : 0;
    std::vector<double> r;
    for (Experiment& e : experiments) {
      const std::vector<bool> m = small_mask(e);
      if (std::none_of(m.begin(), m.end(), [](bool b) { return b; })) continue;
      const std::vector<double> sim = simulate(c, q, e, m);
      ++simulations;
      size_t k = 0;
      for (size_t i = 0; i < e.bytes.size(); ++i) {
        if (m[i]) r.push_back(sim[k++] / e.measured[i] - 1);
      }
    }
    return r;
  };
  const FitOutcome fit = robust_fit(fp, fn);
  params.small = p.small;
  if (fit_inline) {
    params.small.inline_saving_ns = fit.params[0].value;
    fitted.push_back("inline_saving_ns");
    std::snprintf(buf, sizeof buf,
                  "inline sends up to %.0f B: the largest traced size before the latency step "
                  "(+%.0f %%); any threshold up to the next traced size fits alike",
                  threshold, (best_ratio - 1) * 100);
    notes.push_back(buf);
  }
  if (fit_gap) {
    params.small.message_gap_ns = fit.params[1].value;
    fitted.push_back("message_rate");
  }
}

}  // namespace calib
