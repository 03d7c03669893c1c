// A sweep's output folder: DIR/points/<id>/ holds each finished point's full outputs and its
// record point.json, DIR/results.csv the table. A point is committed whole: it is written to
// DIR/points/.tmp-<id>/ and then renamed, so a point folder exists only complete, and a sweep
// killed at any instant (even by SIGKILL) leaves finished points and, at worst, one stale
// temporary folder per running point, which the next attempt of that point removes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "scenarios/sweep/sweep_points.hpp"

namespace scen::sweep {

// "000042": zero-padded so that folders sort in point order.
std::string point_folder_name(size_t id);
std::string point_folder(const std::string& out_dir, size_t id);
std::string record_file(const std::string& out_dir, size_t id);

// Runs one point and commits its folder. Never throws for a point that fails: bad input (a
// value the scenario refuses) or an internal error (a broken invariant) is recorded as a
// failed point with its message, and the sweep goes on. Returns the record.
Json run_point(const SweepSpec& spec, const SweepPoint& p, const std::string& out_dir);

// Commits point `p` as failed with `error` and no outputs: for a point whose run could not
// record itself (its process was killed by a signal or exited without a record).
Json record_failed_point(const SweepSpec& spec, const SweepPoint& p, const std::string& out_dir,
                         const std::string& error);

// The record of point `p`, if its folder was committed (checked to belong to this sweep).
std::optional<Json> read_record(const SweepSpec& spec, const SweepPoint& p,
                                const std::string& out_dir);

// Reads every point's record (nullopt for points not finished) and rewrites results.csv
// atomically from them.
std::vector<std::optional<Json>> rebuild_results(const SweepSpec& spec,
                                                 const std::vector<SweepPoint>& points,
                                                 const std::string& out_dir);

}  // namespace scen::sweep
