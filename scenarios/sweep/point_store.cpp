#include "scenarios/sweep/point_store.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "scenarios/outputs/write_outputs.hpp"
#include "scenarios/run/run_scenario.hpp"
#include "scenarios/sweep/sweep_results.hpp"

namespace fs = std::filesystem;

namespace scen::sweep {

std::string point_folder_name(size_t id) {
  char b[32];
  std::snprintf(b, sizeof b, "%06zu", id);
  return b;
}

std::string point_folder(const std::string& out_dir, size_t id) {
  return (fs::path(out_dir) / "points" / point_folder_name(id)).string();
}

std::string record_file(const std::string& out_dir, size_t id) {
  return (fs::path(point_folder(out_dir, id)) / "point.json").string();
}

namespace {

fs::path temporary_folder(const std::string& out_dir, size_t id) {
  return fs::path(out_dir) / "points" / (".tmp-" + point_folder_name(id));
}

// Writes the record into the temporary folder and renames it into place.
Json commit(const SweepSpec& spec, const SweepPoint& p, const std::string& out_dir,
            const fs::path& tmp, bool ok, const std::string& error,
            const std::vector<Json>& metrics) {
  Json record = point_record(spec, p, ok, error, metrics);
  write_file_atomic((tmp / "point.json").string(), record.dump(2) + "\n");
  // The folder exists only if two runs of the same shard raced (the CLI refuses to run over
  // finished points without --resume): the later commit replaces the earlier one whole.
  const fs::path final_dir = point_folder(out_dir, p.id);
  fs::remove_all(final_dir);
  fs::rename(tmp, final_dir);
  return record;
}

}  // namespace

Json record_failed_point(const SweepSpec& spec, const SweepPoint& p, const std::string& out_dir,
                         const std::string& error) {
  const fs::path tmp = temporary_folder(out_dir, p.id);
  fs::remove_all(tmp);  // whatever the failed attempt left half-written
  fs::create_directories(tmp);
  return commit(spec, p, out_dir, tmp, false, error, {});
}

Json run_point(const SweepSpec& spec, const SweepPoint& p, const std::string& out_dir) {
  const fs::path tmp = temporary_folder(out_dir, p.id);
  // A temporary folder left by a killed attempt of this same point: start afresh.
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  bool ok = false;
  std::string error;
  std::vector<Json> metrics;
  try {
    const Scenario s = load_point(spec, p);
    const RunOutcome out = run_scenario(s);
    write_outputs(s, out, tmp.string());
    metrics = headline_metrics(out.results);
    ok = true;
  } catch (const InputError& e) {
    error = e.what();
  } catch (const std::exception& e) {
    error = std::string("internal error: ") + e.what();
  }
  if (!ok) {
    // Outputs of a half-finished point are not results: the record alone says what failed.
    fs::remove_all(tmp);
    fs::create_directories(tmp);
  }
  return commit(spec, p, out_dir, tmp, ok, error, metrics);
}

std::optional<Json> read_record(const SweepSpec& spec, const SweepPoint& p,
                                const std::string& out_dir) {
  const std::string file = record_file(out_dir, p.id);
  if (!fs::exists(file)) return std::nullopt;
  Json record = read_json_file(file);
  check_record(spec, p, record, file);
  return record;
}

std::vector<std::optional<Json>> rebuild_results(const SweepSpec& spec,
                                                 const std::vector<SweepPoint>& points,
                                                 const std::string& out_dir) {
  std::vector<std::optional<Json>> records(points.size());
  for (const auto& p : points) records[p.id] = read_record(spec, p, out_dir);
  // write_file_atomic's temporary name carries the process id, so shards sharing DIR never
  // write the same temporary file; the last rename wins, and every version is complete.
  write_file_atomic((fs::path(out_dir) / "results.csv").string(),
                    results_csv(spec, points, records));
  return records;
}

}  // namespace scen::sweep
