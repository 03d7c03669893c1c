#include "scenarios/sweep/sweep_results.hpp"

#include "scenarios/outputs/csv_cell.hpp"
#include "scenarios/sweep/quantity.hpp"

namespace scen::sweep {
namespace {

// Columns of results.csv before the axes, between the axes and the metrics, and last.
const std::vector<std::string> kLeading = {"point"};
const std::vector<std::string> kPointColumns = {"repeat", "seed", "status"};
const std::string kErrorColumn = "error";

// Where each metric lives in RunOutcome.results (a JSON pointer).
struct Metric {
  const char* column;
  const char* pointer;
};
const Metric kMetrics[] = {
    {"stop_reason", "/stop_reason"},
    {"end_time_ns", "/end_time_ns"},
    {"flows", "/flows"},
    {"flows_completed", "/flows_completed"},
    {"fct_p50_ns", "/fct_p50_ns"},
    {"fct_p99_ns", "/fct_p99_ns"},
    {"fct_max_ns", "/fct_max_ns"},
    {"slowdown_p50", "/slowdown_p50"},
    {"slowdown_p99", "/slowdown_p99"},
    {"goodput_Gbps", "/goodput_Gbps"},
    {"retransmitted_packets", "/retransmitted_packets"},
    {"timeouts", "/timeouts"},
    {"drops_tail", "/drops/tail"},
    {"drops_ttl", "/drops/ttl"},
    {"drops_no_route", "/drops/no_route"},
    {"drops_link_loss", "/drops/link_loss"},
    {"drops_lossless", "/drops/lossless"},
    {"pause_frames", "/pfc/pause_frames"},
    {"paused_time_ns", "/pfc/paused_time_ns"},
    {"headroom_exhaustions", "/pfc/headroom_exhaustions"},
    {"deadlocks", "/deadlocks"},
    {"ecn_marks", "/ecn/marks"},
    {"dcqcn_rate_decreases", "/dcqcn/rate_decreases"},
    {"cnps_sent", "/dcqcn/cnps_sent"},
    {"collective_size_bytes", "/collective/size_bytes"},
    {"collective_time_us", "/collective/time_us"},
    {"collective_busbw_GBps", "/collective/busbw_GBps"},
    {"training_step_us", "/training/step_time_us"},
    {"training_step_p50_us", "/training/step_time_p50_us"},
    {"training_step_p99_us", "/training/step_time_p99_us"},
    {"training_step_jitter_us", "/training/step_time_jitter_us"},
    {"training_exposed_us", "/training/exposed_communication_us"},
    {"training_mfu_percent", "/training/mfu_percent"},
};

}  // namespace

const std::vector<std::string>& metric_columns() {
  static const std::vector<std::string> columns = [] {
    std::vector<std::string> c;
    for (const auto& m : kMetrics) c.emplace_back(m.column);
    return c;
  }();
  return columns;
}

bool is_reserved_column(const std::string& name) {
  for (const auto& c : kLeading) {
    if (c == name) return true;
  }
  for (const auto& c : kPointColumns) {
    if (c == name) return true;
  }
  for (const auto& m : kMetrics) {
    if (name == m.column) return true;
  }
  return name == kErrorColumn;
}

std::vector<Json> headline_metrics(const Json& results) {
  std::vector<Json> cells;
  for (const auto& m : kMetrics) {
    const Json::json_pointer ptr(m.pointer);
    cells.push_back(results.contains(ptr) ? results.at(ptr) : Json());
  }
  return cells;
}

Json point_record(const SweepSpec& spec, const SweepPoint& p, bool ok, const std::string& error,
                  const std::vector<Json>& metrics) {
  Json r;
  r["sweep"] = spec.name;
  r["point"] = p.id;
  Json axes = Json::object();
  for (size_t a = 0; a < spec.axes.size(); ++a) axes[spec.axes[a].name] = p.values[a];
  r["axes"] = axes;
  r["repeat"] = p.repeat;
  r["seed"] = p.seed;
  r["status"] = ok ? "ok" : "failed";
  r["error"] = error;
  Json m = Json::object();
  for (size_t i = 0; i < metrics.size(); ++i) {
    if (!metrics[i].is_null()) m[metric_columns()[i]] = metrics[i];  // absent: not reported
  }
  r["metrics"] = m;
  return r;
}

void check_record(const SweepSpec& spec, const SweepPoint& p, const Json& record,
                  const std::string& file) {
  const Json expected = point_record(spec, p, true, "", {});
  for (const char* key : {"sweep", "point", "axes", "repeat", "seed"}) {
    if (!record.is_object() || !record.contains(key) || record[key] != expected[key]) {
      throw InputError(file, record.is_object() && record.contains(key) ? record[key].dump() : "",
                       std::string("the record of point ") + std::to_string(p.id) + " of sweep " +
                           spec.name + " (" + key + " " + expected[key].dump() +
                           "); this folder holds another sweep's points");
    }
  }
  const std::string status = record.value("status", "");
  if (status != "ok" && status != "failed") {
    throw InputError(file + ": status", record.value("status", Json()).dump(),
                     "\"ok\" or \"failed\"");
  }
}

std::string results_csv(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                        const std::vector<std::optional<Json>>& records) {
  std::string out;
  std::vector<std::string> header = kLeading;
  for (const auto& a : spec.axes) header.push_back(a.name);
  header.insert(header.end(), kPointColumns.begin(), kPointColumns.end());
  for (const auto& m : kMetrics) header.emplace_back(m.column);
  header.push_back(kErrorColumn);
  for (size_t i = 0; i < header.size(); ++i) out += (i ? "," : "") + csv_cell(header[i]);
  out += "\n";
  for (const auto& p : points) {
    if (!records[p.id]) continue;
    const Json& r = *records[p.id];
    std::string row = std::to_string(p.id);
    for (const auto& a : spec.axes) row += "," + csv_cell(value_text(r["axes"][a.name]));
    row += "," + std::to_string(p.repeat) + "," + std::to_string(p.seed) + "," +
           r["status"].get<std::string>();
    const Json& m = r.contains("metrics") ? r["metrics"] : Json::object();
    for (const auto& c : metric_columns()) {
      row += ",";
      // Numbers as JSON writes them; text (a stop reason) quoted as RFC 4180 needs.
      if (m.contains(c) && !m[c].is_null()) row += csv_cell(value_text(m[c]));
    }
    row += "," + csv_cell(r.value("error", ""));
    out += row + "\n";
  }
  return out;
}

}  // namespace scen::sweep
