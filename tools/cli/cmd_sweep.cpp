// rdmasim sweep: runs every point of a sweep file (or one shard of them) in parallel with
// OpenMP, commits each point's folder atomically, and rebuilds results.csv from the records.
#include <omp.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/program_options.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "scenarios/loader/scenario.hpp"
#include "scenarios/outputs/write_outputs.hpp"
#include "scenarios/sweep/point_store.hpp"
#include "scenarios/sweep/sweep_points.hpp"
#include "scenarios/sweep/sweep_spec.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/parse_options.hpp"
#include "tools/cli/point_process.hpp"
#include "tools/cli/slurm_script.hpp"

namespace po = boost::program_options;
namespace fs = std::filesystem;
namespace sw = scen::sweep;

namespace cli {
namespace {

struct Shard {
  size_t index = 0, count = 1;
  bool has(size_t id) const { return id % count == index; }
};

Shard parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  Shard s;
  try {
    size_t used = 0;
    if (slash == std::string::npos) throw std::invalid_argument("no /");
    s.index = std::stoul(text.substr(0, slash), &used);
    if (used != slash) throw std::invalid_argument("index");
    s.count = std::stoul(text.substr(slash + 1), &used);
    if (used != text.size() - slash - 1) throw std::invalid_argument("count");
  } catch (const std::exception&) {
    throw scen::InputError("--shard", text, "i/N with integers 0 <= i < N, such as 0/4");
  }
  if (s.count == 0 || s.index >= s.count) {
    throw scen::InputError("--shard", text, "i/N with 0 <= i < N, such as 0/4");
  }
  return s;
}

// "[#########.........]  12/40 points, 1 failed, ETA 35 s" on one terminal line.
class ProgressBar {
 public:
  ProgressBar(size_t total, bool shown)
      : total_(total), shown_(shown), start_(std::chrono::steady_clock::now()) {}
  void update(size_t done, size_t failed) {
    if (!shown_) return;
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const size_t width = 30;
    const size_t filled = total_ ? done * width / total_ : width;
    std::string bar(filled, '#');
    bar += std::string(width - filled, '.');
    char eta[48] = "";
    if (done > 0 && done < total_) {
      std::snprintf(eta, sizeof eta, ", ETA %.0f s",
                    wall / static_cast<double>(done) * static_cast<double>(total_ - done));
    }
    std::fprintf(stderr, "\r  [%s] %zu/%zu points, %zu failed%s   ", bar.c_str(), done, total_,
                 failed, eta);
    std::fflush(stderr);
  }
  void finish() {
    if (shown_) std::fprintf(stderr, "\n");
  }

 private:
  size_t total_;
  bool shown_;
  std::chrono::steady_clock::time_point start_;
};

int report(const sw::SweepSpec& spec, const std::vector<sw::SweepPoint>& points,
           const std::vector<std::optional<scen::Json>>& records, const std::string& out_dir,
           bool quiet) {
  size_t ok = 0, failed = 0;
  std::vector<size_t> missing;
  for (const auto& p : points) {
    if (!records[p.id]) {
      missing.push_back(p.id);
    } else if ((*records[p.id])["status"] == "ok") {
      ++ok;
    } else {
      ++failed;
      if (!quiet) {
        std::fprintf(stderr, "rdmasim sweep: point %zu failed: %s\n", p.id,
                     (*records[p.id])["error"].get<std::string>().c_str());
      }
    }
  }
  if (!quiet) {
    std::printf("sweep %s: %zu points, %zu ok, %zu failed, %zu not run\n", spec.name.c_str(),
                points.size(), ok, failed, missing.size());
    std::printf("  results in %s\n", (fs::path(out_dir) / "results.csv").string().c_str());
  }
  return failed > 0 ? kBatchFailed : kOk;
}

}  // namespace

int cmd_sweep(int argc, char** argv) {
  po::options_description opts("rdmasim sweep SWEEP.json --out DIR [options]");
  std::string out_dir, shard_text, merge_dir, slurm_file, slurm_time_limit, slurm_partition;
  std::vector<std::string> sbatch_lines;
  int jobs = 0;
  long long tasks_given = 0;  // signed: "-3" must not wrap to 2^64 - 3
  opts.add_options()("help,h", "this help")("out,o", po::value(&out_dir),
                                            "output folder: points/<id>/, results.csv")(
      "jobs,j", po::value(&jobs), "points run at once (default: OMP_NUM_THREADS or the cores)")(
      "resume", "keep the points already finished in DIR, run only the others")(
      "shard", po::value(&shard_text), "run only points with id % N == i (i/N, such as 0/4)")(
      "merge", po::value(&merge_dir),
      "rebuild DIR/results.csv from every shard's points (run nothing)")(
      "emit-slurm", po::value(&slurm_file),
      "write a Slurm array job script (with --out and --tasks) and run nothing")(
      "tasks", po::value(&tasks_given), "number of array tasks (shards) for --emit-slurm")(
      "time", po::value(&slurm_time_limit),
      "--emit-slurm: each task's time limit (#SBATCH --time), such as 2:00:00")(
      "partition", po::value(&slurm_partition),
      "--emit-slurm: the partition to run in (#SBATCH --partition)")(
      "sbatch", po::value(&sbatch_lines)->composing(),
      "--emit-slurm: one more #SBATCH option, such as account=proj (repeatable)")(
      "quiet,q", "no progress bar and no summary");
  // Not in --help: how a sweep runs each point in a process of its own (point_process.hpp).
  long long child_point = -1, parent_pid = 0;
  po::options_description internal;
  internal.add_options()("point", po::value(&child_point), "run this one point and commit it")(
      "parent", po::value(&parent_pid), "the sweep's process, whose end ends this one");
  po::options_description all;
  all.add(opts).add(internal);
  std::string sweep_file;
  const po::variables_map vm = parse_options(argc, argv, all, "sweep", sweep_file);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return kOk;
  }
  const bool quiet = vm.count("quiet") > 0;
  if (sweep_file.empty()) {
    std::cerr << "rdmasim sweep: missing SWEEP\n" << opts << "\n";
    return kBadInput;
  }
  if (slurm_file.empty()) {
    const std::string sbatch = sbatch_lines.empty() ? "" : sbatch_lines.front();
    for (const auto& [flag, value] :
         {std::pair{"--time", slurm_time_limit}, std::pair{"--partition", slurm_partition},
          std::pair{"--sbatch", sbatch}}) {
      if (!value.empty()) {
        throw scen::InputError(flag, value, "it only with --emit-slurm FILE (it shapes that job)");
      }
    }
  }
  const sw::SweepSpec spec = sw::read_sweep_file(sweep_file);
  const std::vector<sw::SweepPoint> points = sw::expand_points(spec);

  if (vm.count("point")) {
    if (out_dir.empty() || child_point < 0 || static_cast<size_t>(child_point) >= points.size()) {
      throw scen::InputError("--point", std::to_string(child_point),
                             "a point id of this sweep, with --out");
    }
    // A point outlives no sweep: killed with it (even by SIGKILL), so that a --resume never
    // races an orphan committing the same point.
    if (parent_pid > 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != static_cast<pid_t>(parent_pid)) return kInternal;  // already gone
    }
    (void)sw::run_point(spec, points[static_cast<size_t>(child_point)], out_dir);
    return kOk;  // the record says whether the point failed
  }

  if (!merge_dir.empty()) {
    if (!fs::is_directory(fs::path(merge_dir) / "points")) {
      throw scen::InputError("--merge", merge_dir, "a sweep output folder (with points/)");
    }
    const auto records = sw::rebuild_results(spec, points, merge_dir);
    const int code = report(spec, points, records, merge_dir, quiet);
    for (const auto& r : records) {
      if (!r) return kBatchFailed;  // an incomplete table is not a finished batch
    }
    return code;
  }
  if (out_dir.empty()) throw scen::InputError("--out", "", "an output folder --out DIR");
  if (jobs < 0) throw scen::InputError("--jobs", std::to_string(jobs), "a positive count");
  if (jobs == 0) jobs = omp_get_max_threads();
  if (jobs > 4096) {  // also for Slurm, whose nodes this machine does not know
    throw scen::InputError("--jobs", std::to_string(jobs), "at most 4096 points at once");
  }

  if (!slurm_file.empty()) {
    if (tasks_given < 1 || tasks_given > 1'000'000) {
      throw scen::InputError("--tasks", std::to_string(tasks_given),
                             "the number of array tasks (shards), from 1 to 1000000");
    }
    const auto tasks = static_cast<size_t>(tasks_given);
    const SlurmExtras extras = check_slurm_extras(slurm_time_limit, slurm_partition, sbatch_lines);
    // Every point loads here before the job is written: a typo'd axis path or a value the
    // scenario refuses fails now, with its point and axis, not in every task on the cluster.
    for (const auto& p : points) (void)sw::load_point(spec, p);
    // Slurm opens each task's --output file in DIR before the task runs: DIR must exist.
    fs::create_directories(out_dir);
    scen::write_file_atomic(
        slurm_file, slurm_script(spec, points.size(), tasks, sweep_file, out_dir, jobs, extras));
    ::chmod(slurm_file.c_str(), 0755);
    if (!quiet) {
      std::printf("wrote %s: %zu points in %zu array tasks; submit with sbatch %s\n",
                  slurm_file.c_str(), points.size(), tasks, slurm_file.c_str());
    }
    return kOk;
  }
  // Here, points beyond a few per core only add threads (and past the system's limit, thread
  // creation fails): at most 4 per core, and never more than the points to run.
  const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  if (jobs > 4 * cores) {
    throw scen::InputError("--jobs", std::to_string(jobs),
                           "at most 4 per core: " + std::to_string(4 * cores) +
                               " on this machine's " + std::to_string(cores) + " cores");
  }
  const Shard shard = shard_text.empty() ? Shard{} : parse_shard(shard_text);
  const bool resume = vm.count("resume") > 0;

  // Before anything is written: every record already in DIR must belong to this sweep, and
  // without --resume this shard's points must not exist yet (nothing finished is lost).
  std::vector<const sw::SweepPoint*> todo;
  std::atomic<size_t> failed{0};
  size_t done_before = 0;
  for (const auto& p : points) {
    const auto record = sw::read_record(spec, p, out_dir);
    if (!shard.has(p.id)) continue;
    if (record) {
      if (!resume) {
        throw scen::InputError("--out", out_dir,
                               "a folder without finished points of this sweep (point " +
                                   sw::point_folder_name(p.id) +
                                   " exists); use --resume to keep them, or another --out");
      }
      ++done_before;
      if ((*record)["status"] != "ok") ++failed;
      continue;
    }
    todo.push_back(&p);
  }
  fs::create_directories(fs::path(out_dir) / "points");

  const size_t mine = done_before + todo.size();
  ProgressBar bar(mine, !quiet && isatty(STDERR_FILENO));
  std::atomic<size_t> done{done_before};
  bar.update(done, failed);
  const auto n = static_cast<long>(todo.size());
  // Each point runs in a process of its own (point_process.hpp): a point that crashes is
  // recorded with its signal and the others go on. A thread per point at once waits for it.
  // Dynamic scheduling: points differ in length.
  const std::string exe = fs::canonical("/proc/self/exe").string();
  const int threads = static_cast<int>(std::max<long>(1, std::min<long>(jobs, n)));
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (long i = 0; i < n; ++i) {
    const sw::SweepPoint& p = *todo[static_cast<size_t>(i)];
    bool ok = false;
    try {
      const auto record = run_point_in_child(exe, sweep_file, spec, p, out_dir);
      if (record) {
        ok = (*record)["status"] == "ok";
      } else {
#pragma omp critical(sweep_output)
        std::fprintf(stderr,
                     "\nrdmasim sweep: point %zu not committed (stopped, or its folder "
                     "could not be written); --resume runs it again\n",
                     p.id);
      }
    } catch (const std::exception& e) {
      // Committing the folder failed (disk full, permissions): the point stays unfinished and
      // a --resume will run it again.
#pragma omp critical(sweep_output)
      std::fprintf(stderr, "\nrdmasim sweep: point %zu not committed: %s\n", p.id, e.what());
    }
    if (!ok) ++failed;
    ++done;
#pragma omp critical(sweep_output)
    bar.update(done, failed);
  }
  bar.finish();
  const auto records = sw::rebuild_results(spec, points, out_dir);
  std::vector<sw::SweepPoint> shard_points;
  for (const auto& p : points) {
    if (shard.has(p.id)) shard_points.push_back(p);
  }
  int code = report(spec, shard_points, records, out_dir, quiet);
  for (const auto& p : shard_points) {
    if (!records[p.id]) code = kBatchFailed;
  }
  return code;
}

}  // namespace cli
