// A point's record (point.json: its values, seed, status, error and headline metrics) and the
// results table rebuilt from the records, one row per point in point order. Only
// deterministic values go in either: wall times stay in each point's run_stats.json.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "scenarios/loader/json_reader.hpp"
#include "scenarios/sweep/sweep_points.hpp"

namespace scen::sweep {

// The headline metric columns of results.csv, in order (docs/sweeps.md).
const std::vector<std::string>& metric_columns();

// The metric cells of one run's results (RunOutcome.results), in metric_columns() order; a
// metric the scenario does not report (pauses without PFC) is null (an empty cell).
std::vector<Json> headline_metrics(const Json& results);

// The record of a finished point; `metrics` is empty for a failed one.
Json point_record(const SweepSpec& spec, const SweepPoint& p, bool ok, const std::string& error,
                  const std::vector<Json>& metrics);

// Throws InputError when `record` (read from `file`) is not the record of point `p` of this
// sweep: a folder written by another sweep file must not be merged silently.
void check_record(const SweepSpec& spec, const SweepPoint& p, const Json& record,
                  const std::string& file);

// results.csv: the header, then one row per point that has a record, in point order.
std::string results_csv(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                        const std::vector<std::optional<Json>>& records);

}  // namespace scen::sweep
