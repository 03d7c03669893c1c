// rdmasim sweep as a user runs it: the real binary, tiny points (the 8-to-1 incast with small
// messages, milliseconds each), results.csv, parallel runs, a SIGKILL and --resume, shards and
// merge, a failing point, the Slurm script, and rdmasim plot.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_runner.hpp"
#include "temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using test_support::contains;
using test_support::lines_of;
using test_support::rdmasim;
using test_support::read_file;
using test_support::Run;
using test_support::shell_quote;
using test_support::TempDir;

const std::string kBin = RDMASIM_BIN_DIR "/rdmasim";
const std::string kIncast = RDMASIM_SOURCE_DIR "/scenarios/incast-8to1.json";

// A sweep of `sizes` × two queue limits over the 8-to-1 incast (sizes small: fast points).
std::string write_sweep(const TempDir& dir, const std::vector<std::string>& sizes,
                        const std::string& name = "sweep.json") {
  const Json sweep = {{"name", "tiny"},
                      {"base", kIncast},
                      {"axes",
                       {{{"name", "size"}, {"path", "workload.incast.size"}, {"values", sizes}},
                        {{"name", "qlimit"},
                         {"path", "fabric.switch.queue_limit"},
                         {"values", {"100KB", "1MB"}}}}}};
  return dir.write(name, sweep.dump(2)).string();
}

// The committed point folders (temporary ones excluded), sorted.
std::vector<std::string> point_folders(const fs::path& out) {
  std::vector<std::string> names;
  if (!fs::exists(out / "points")) return names;
  for (const auto& e : fs::directory_iterator(out / "points")) {
    const std::string n = e.path().filename().string();
    if (n.rfind(".tmp-", 0) != 0) names.push_back(n);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> ids(size_t n, size_t shard = 0, size_t shards = 1) {
  std::vector<std::string> names;
  for (size_t i = 0; i < n; ++i) {
    if (i % shards != shard) continue;
    char b[32];
    std::snprintf(b, sizeof b, "%06zu", i);
    names.push_back(b);
  }
  return names;
}

const char* const kResultsHeader =
    "point,size,qlimit,repeat,seed,status,stop_reason,end_time_ns,flows,flows_completed,"
    "fct_p50_ns,fct_p99_ns,fct_max_ns,slowdown_p50,slowdown_p99,goodput_Gbps,"
    "retransmitted_packets,timeouts,drops_tail,drops_ttl,drops_no_route,drops_link_loss,"
    "drops_lossless,pause_frames,paused_time_ns,headroom_exhaustions,deadlocks,ecn_marks,"
    "dcqcn_rate_decreases,cnps_sent,collective_size_bytes,collective_time_us,"
    "collective_busbw_GBps,training_step_us,training_step_p50_us,training_step_p99_us,"
    "training_step_jitter_us,training_exposed_us,training_mfu_percent,error";

}  // namespace

TEST_CASE("sweep cli: results.csv in point order, byte-identical with -j 1 and -j 2",
          "[sweep][cli]") {
  TempDir dir("rdmasim_sweep");
  const std::string sweep = write_sweep(dir, {"64KB", "128KB", "256KB"});
  const Run a = rdmasim({"sweep", sweep, "--out", "a", "-j", "1"}, dir);
  INFO(a.out << a.err);
  REQUIRE(a.exit_code == 0);
  CHECK(contains(a.out, "sweep tiny: 6 points, 6 ok, 0 failed, 0 not run"));
  const Run b = rdmasim({"sweep", sweep, "--out", "b", "-j", "2", "-q"}, dir);
  INFO(b.err);
  REQUIRE(b.exit_code == 0);
  CHECK(b.out.empty());

  const std::string results = read_file(dir / "a/results.csv");
  CHECK(results == read_file(dir / "b/results.csv"));
  const auto lines = lines_of(results);
  REQUIRE(lines.size() == 7);
  CHECK(lines[0] == kResultsHeader);
  // Point order (first axis slowest), status ok, eight flows each completed, no pause columns
  // (PFC is off in this scenario).
  CHECK(lines[1].rfind("0,64KB,100KB,0,1,ok,workload-done,", 0) == 0);
  CHECK(lines[2].rfind("1,64KB,1MB,0,1,ok,", 0) == 0);
  CHECK(lines[6].rfind("5,256KB,1MB,0,1,ok,", 0) == 0);
  for (size_t i = 1; i < lines.size(); ++i) {
    INFO(lines[i]);
    CHECK(contains(lines[i], ",8,8,"));
    CHECK(lines[i].back() == ',');  // no error
  }
  // Each point has its full outputs, the same as `rdmasim run --set` of that point.
  CHECK(point_folders(dir / "a") == ids(6));
  const Run single =
      rdmasim({"run", kIncast, "--out", "single", "-q", "--set", "workload.incast.size=256KB",
               "--set", "fabric.switch.queue_limit=1MB"},
              dir);
  REQUIRE(single.exit_code == 0);
  CHECK(read_file(dir / "single/flows.csv") == read_file(dir / "b/points/000005/flows.csv"));
  CHECK(read_file(dir / "single/links.csv") == read_file(dir / "a/points/000005/links.csv"));
  const Json record = Json::parse(read_file(dir / "a/points/000005/point.json"));
  CHECK(record["axes"] == Json({{"size", "256KB"}, {"qlimit", "1MB"}}));
  CHECK(record["status"] == "ok");
  const Json summary = Json::parse(read_file(dir / "single/summary.json"));
  CHECK(record["metrics"]["fct_p99_ns"] == summary["results"]["fct_p99_ns"]);

  // Without --resume, a folder holding this sweep's points is refused before anything runs.
  const Run again = rdmasim({"sweep", sweep, "--out", "a"}, dir);
  CHECK(again.exit_code == 2);
  CHECK(contains(again.err, "use --resume"));
  CHECK(read_file(dir / "a/results.csv") == results);
}

TEST_CASE("sweep cli: killed with SIGKILL mid-way, --resume completes every point once",
          "[sweep][cli]") {
  TempDir dir("rdmasim_sweep");
  std::vector<std::string> sizes;
  for (int k = 1; k <= 12; ++k) sizes.push_back(std::to_string(128 * k) + "KB");
  const std::string sweep = write_sweep(dir, sizes);  // 24 points
  const fs::path killed = dir / "killed";

  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // The child: the CLI, one point at a time, silent.
    std::freopen("/dev/null", "w", stdout);
    std::freopen("/dev/null", "w", stderr);
    execl(kBin.c_str(), "rdmasim", "sweep", sweep.c_str(), "--out", killed.c_str(), "-j", "1", "-q",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  // Kill it as soon as a few points are committed.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (point_folders(killed).size() < 3 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  REQUIRE(kill(pid, SIGKILL) == 0);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFSIGNALED(status));
  const auto before = point_folders(killed);
  INFO("points committed before the kill: " << before.size());
  REQUIRE(before.size() >= 3);
  REQUIRE(before.size() < 24);  // killed mid-way, not after the end
  CHECK_FALSE(fs::exists(killed / "results.csv"));
  // A finished point is kept by --resume, not run again: a file left in it survives.
  dir.write("killed/points/000000/kept", "x");

  const Run resumed = rdmasim({"sweep", sweep, "--out", "killed", "--resume", "-j", "2"}, dir);
  INFO(resumed.out << resumed.err);
  REQUIRE(resumed.exit_code == 0);
  CHECK(fs::exists(killed / "points/000000/kept"));
  // Every point exactly once, no temporary folder left.
  CHECK(point_folders(killed) == ids(24));
  for (const auto& e : fs::directory_iterator(killed / "points")) {
    CHECK(e.path().filename().string().rfind(".tmp-", 0) != 0);
  }
  const Run whole = rdmasim({"sweep", sweep, "--out", "whole", "-j", "2", "-q"}, dir);
  REQUIRE(whole.exit_code == 0);
  const std::string results = read_file(killed / "results.csv");
  CHECK(results == read_file(dir / "whole/results.csv"));
  const auto lines = lines_of(results);
  REQUIRE(lines.size() == 25);
  for (size_t i = 1; i < lines.size(); ++i)
    CHECK(lines[i].rfind(std::to_string(i - 1) + ",", 0) == 0);
}

TEST_CASE("sweep cli: shards partition the points, merge equals a single run", "[sweep][cli]") {
  TempDir dir("rdmasim_sweep");
  const std::string sweep = write_sweep(dir, {"64KB", "96KB", "128KB", "160KB"});  // 8 points
  const Run single = rdmasim({"sweep", sweep, "--out", "single", "-q"}, dir);
  REQUIRE(single.exit_code == 0);

  // Three shards into one folder, one after the other: each adds exactly its own points.
  std::set<std::string> seen;
  for (size_t i = 0; i < 3; ++i) {
    const Run r = rdmasim(
        {"sweep", sweep, "--out", "shared", "--shard", std::to_string(i) + "/3", "-j", "2"}, dir);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    std::vector<std::string> added;
    for (const auto& n : point_folders(dir / "shared")) {
      if (seen.insert(n).second) added.push_back(n);
    }
    CHECK(added == ids(8, i, 3));
    if (i < 2) {
      // Before the last shard, merge reports the table incomplete.
      const Run early = rdmasim({"sweep", sweep, "--merge", "shared", "-q"}, dir);
      CHECK(early.exit_code == 4);
    }
  }
  CHECK(seen.size() == 8);
  const Run merged = rdmasim({"sweep", sweep, "--merge", "shared"}, dir);
  INFO(merged.out << merged.err);
  CHECK(merged.exit_code == 0);
  CHECK(contains(merged.out, "8 points, 8 ok, 0 failed, 0 not run"));
  CHECK(read_file(dir / "shared/results.csv") == read_file(dir / "single/results.csv"));

  // A folder of another sweep is not merged silently.
  const Json other = {
      {"name", "other"},
      {"base", kIncast},
      {"axes", {{{"name", "size"}, {"path", "workload.incast.size"}, {"values", {"1MB"}}}}}};
  const std::string other_file = dir.write("other.json", other.dump()).string();
  const Run wrong = rdmasim({"sweep", other_file, "--merge", "shared"}, dir);
  CHECK(wrong.exit_code == 2);
  CHECK(contains(wrong.err, "another sweep"));

  const Run bad = rdmasim({"sweep", sweep, "--out", "x", "--shard", "3/3"}, dir);
  CHECK(bad.exit_code == 2);
  CHECK(contains(bad.err, "--shard: got 3/3"));
  CHECK_FALSE(fs::exists(dir / "x"));
}

TEST_CASE("sweep cli: a failing point is recorded, the others complete, exit code 4",
          "[sweep][cli]") {
  TempDir dir("rdmasim_sweep");
  const Json sweep = {
      {"name", "fails"},
      {"base", kIncast},
      {"axes",
       {{{"name", "lat"},
         {"path", "fabric.switch.latency"},
         {"values", {"300ns", "-5ns", "700ns"}}},
        {{"name", "size"}, {"path", "workload.incast.size"}, {"values", {"64KB"}}}}}};
  const std::string file = dir.write("fails.json", sweep.dump()).string();
  const Run r = rdmasim({"sweep", file, "--out", "o", "-j", "2"}, dir);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 4);
  CHECK(contains(r.out, "3 points, 2 ok, 1 failed"));
  CHECK(contains(r.err,
                 "point 1 failed: point 1 (lat=-5ns size=64KB): axis lat = -5ns: "
                 "fabric.switch.latency: got \"-5ns\""));
  const auto lines = lines_of(read_file(dir / "o/results.csv"));
  REQUIRE(lines.size() == 4);
  CHECK(lines[1].rfind("0,300ns,64KB,0,1,ok,", 0) == 0);
  CHECK(lines[2].rfind("1,-5ns,64KB,0,1,failed,,,", 0) == 0);
  CHECK(contains(lines[2], "fabric.switch.latency: got \"\"-5ns\"\""));  // CSV-quoted
  CHECK(lines[3].rfind("2,700ns,64KB,0,1,ok,", 0) == 0);
  const Json record = Json::parse(read_file(dir / "o/points/000001/point.json"));
  CHECK(record["status"] == "failed");
  CHECK(contains(record["error"].get<std::string>(), "axis lat"));
  // The failed point's folder holds its record only; the others their outputs.
  CHECK_FALSE(fs::exists(dir / "o/points/000001/flows.csv"));
  CHECK(fs::exists(dir / "o/points/000002/flows.csv"));
  // --resume keeps the failed record (a deterministic failure fails again) and exits 4.
  const Run resumed = rdmasim({"sweep", file, "--out", "o", "--resume", "-q"}, dir);
  CHECK(resumed.exit_code == 4);
}

TEST_CASE("sweep cli: a malformed sweep file exits 2 with its JSON path, writing nothing",
          "[sweep][cli]") {
  TempDir dir("rdmasim_sweep");
  const Json sweep = {{"base", kIncast},
                      {"axes",
                       {{{"path", "workload.incast.size"},
                         {"range", {{"from", "64KB"}, {"to", "1us"}, {"step", "1KB"}}}}}}};
  const std::string file = dir.write("bad.json", sweep.dump()).string();
  const Run r = rdmasim({"sweep", file, "--out", "o"}, dir);
  CHECK(r.exit_code == 2);
  CHECK(contains(r.err, "rdmasim: error: axes[0].range.to: got \"1us\"; expected a size"));
  CHECK_FALSE(fs::exists(dir / "o"));
}

TEST_CASE("sweep cli: --emit-slurm writes an array job whose tasks run the shards",
          "[sweep][cli]") {
  TempDir dir("rdmasim_sweep");
  const std::string sweep = write_sweep(dir, {"64KB", "128KB"});  // 4 points
  const Run r = rdmasim(
      {"sweep", sweep, "--out", "cluster", "--emit-slurm", "job.sh", "--tasks", "3", "-j", "2"},
      dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_FALSE(fs::exists(dir / "cluster/points"));  // nothing run
  const std::string script = read_file(dir / "job.sh");
  CHECK(contains(script, "#SBATCH --array=0-2\n"));
  CHECK(contains(script, "#SBATCH --cpus-per-task=2\n"));
  CHECK(contains(script,
                 "--resume -j \"${SLURM_CPUS_PER_TASK:-1}\" --shard "
                 "\"${SLURM_ARRAY_TASK_ID}/3\""));
  // Run the tasks here as Slurm would (one environment variable each), then merge.
  for (int task = 0; task < 3; ++task) {
    const std::string cmd = "cd " + shell_quote(dir.path().string()) +
                            " && SLURM_ARRAY_TASK_ID=" + std::to_string(task) +
                            " bash job.sh >/dev/null 2>&1";
    CHECK(std::system(cmd.c_str()) == 0);
  }
  CHECK(point_folders(dir / "cluster") == ids(4));
  const Run merged = rdmasim({"sweep", sweep, "--merge", "cluster", "-q"}, dir);
  CHECK(merged.exit_code == 0);
  const Run single = rdmasim({"sweep", sweep, "--out", "single", "-q"}, dir);
  CHECK(read_file(dir / "cluster/results.csv") == read_file(dir / "single/results.csv"));
}

// Whether the interpreter rdmasim plot uses (Debian's, where python3-matplotlib installs) has
// matplotlib; prints SKIPPED when not.
static bool matplotlib_available() {
  const std::string python = fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  if (std::system((python + " -c 'import matplotlib' >/dev/null 2>&1").c_str()) == 0) return true;
  std::printf("SKIPPED: python3 with matplotlib is not installed (python3-matplotlib)\n");
  return false;
}

TEST_CASE("plot: a PNG of a metric against an axis, by another axis", "[sweep][cli]") {
  if (!matplotlib_available()) return;
  TempDir dir("rdmasim_sweep");
  const std::string sweep = write_sweep(dir, {"64KB", "128KB", "256KB"});
  REQUIRE(rdmasim({"sweep", sweep, "--out", "o", "-q"}, dir).exit_code == 0);
  const Run p = rdmasim({"plot", "o/results.csv", "--x", "size", "--y", "fct_p99_ns", "--by",
                         "qlimit", "-o", "fct.png"},
                        dir);
  INFO(p.out << p.err);
  CHECK(p.exit_code == 0);
  // In human units: the FCT in µs, the sizes labelled as the sweep file writes them.
  CHECK(contains(p.out, "wrote fct.png: fct_p99 (µs) against size (KB), 2 line(s)"));
  // A count (flows completed) gets integer ticks.
  const Run count = rdmasim(
      {"plot", "o/results.csv", "--x", "size", "--y", "flows_completed", "-o", "n.png"}, dir);
  CHECK(contains(count.out, "flows_completed against size (KB), 1 line(s); integer ticks on y"));
  const std::string png = read_file(dir / "fct.png");
  REQUIRE(png.size() > 1000);
  CHECK(png.substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));

  const Run bad =
      rdmasim({"plot", "o/results.csv", "--x", "size", "--y", "fct_p98_ns", "-o", "bad.png"}, dir);
  CHECK(bad.exit_code == 2);
  CHECK(contains(bad.err, "no column 'fct_p98_ns'"));
  CHECK_FALSE(fs::exists(dir / "bad.png"));
}

TEST_CASE("plot: a file that is not a sweep's table exits 2 with a message, no traceback",
          "[sweep][cli]") {
  if (std::system("python3 -c 1 >/dev/null 2>&1") != 0) {
    std::printf("SKIPPED: python3 is not installed\n");
    return;
  }
  TempDir dir("rdmasim_plot_bad");
  dir.write("binary.csv", std::string("\x89PNG\r\n\x1a\n\xff\xfe\x00\x01", 12));
  dir.write("ragged.csv", "point,size,status,fct_p99_ns\n0,64KB,ok,5\n1,128KB\n");
  dir.write("long.csv", "point,size,status\n0,64KB,ok,5,6\n");
  for (const char* file : {"binary.csv", "ragged.csv", "long.csv"}) {
    const Run r = rdmasim({"plot", file, "--x", "size", "--y", "fct_p99_ns", "-o", "x.png"}, dir);
    INFO(file << ": " << r.out << r.err);
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, file));
    CHECK_FALSE(contains(r.err, "Traceback"));
    CHECK_FALSE(fs::exists(dir / "x.png"));
  }
}

TEST_CASE("sweep cli: --emit-slurm takes --time, --partition and #SBATCH lines, checks first",
          "[sweep][cli]") {
  TempDir dir("rdmasim_sweep_slurm");
  const std::string sweep = write_sweep(dir, {"64KB"});
  const Run r = rdmasim(
      {"sweep", sweep, "--out", "cluster", "--emit-slurm", "job.sh", "--tasks", "2", "--time",
       "1-02:00:00", "--partition", "gpu", "--sbatch", "account=proj", "--sbatch=--qos=low"},
      dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const std::string script = read_file(dir / "job.sh");
  CHECK(contains(script, "#SBATCH --time=1-02:00:00\n"));
  CHECK(contains(script, "#SBATCH --partition=gpu\n"));
  CHECK(contains(script, "#SBATCH --account=proj\n"));
  CHECK(contains(script, "#SBATCH --qos=low\n"));

  // Refused, with nothing written: a time Slurm does not read, a line break in an option
  // (it would put a command into the job), Slurm options without --emit-slurm.
  const std::vector<std::vector<std::string>> bad = {
      {"--emit-slurm", "bad.sh", "--tasks", "2", "--time", "2h"},
      {"--emit-slurm", "bad.sh", "--tasks", "2", "--sbatch", "qos=low\nrm -rf ~"},
      {"--emit-slurm", "bad.sh", "--tasks", "2", "--partition", "a b"},
      {"--time", "10"},
  };
  for (const auto& extra : bad) {
    std::vector<std::string> args = {"sweep", sweep, "--out", "bad"};
    args.insert(args.end(), extra.begin(), extra.end());
    const Run b = rdmasim(args, dir);
    INFO(b.out << b.err);
    CHECK(b.exit_code == 2);
    CHECK(contains(b.err, extra[extra.size() - 2]));
    CHECK_FALSE(fs::exists(dir / "bad.sh"));
    CHECK_FALSE(fs::exists(dir / "bad"));
  }

  // A typo'd axis path: found when the job is written (point and axis named), not in every
  // task on the cluster.
  Json typo = Json::parse(read_file(sweep));
  typo["axes"][1]["path"] = "fabric.switch.queue_limt";
  dir.write("typo.json", typo.dump(2));
  const Run t = rdmasim(
      {"sweep", "typo.json", "--out", "typo", "--emit-slurm", "typo.sh", "--tasks", "2"}, dir);
  INFO(t.out << t.err);
  CHECK(t.exit_code == 2);
  CHECK(contains(t.err, "point 0"));
  CHECK(contains(t.err, "queue_limt"));
  CHECK_FALSE(fs::exists(dir / "typo.sh"));
  CHECK_FALSE(fs::exists(dir / "typo"));
}

TEST_CASE("sweep cli: an axis on seed replaces the base seed of its points", "[sweep][cli]") {
  TempDir dir("rdmasim_sweep_seed");
  const Json sweep = {
      {"name", "seeds"}, {"base", kIncast}, {"axes", {{{"path", "seed"}, {"values", {3, 5}}}}}};
  dir.write("seeds.json", sweep.dump(2));
  const Run r = rdmasim({"sweep", "seeds.json", "--out", "o", "-q"}, dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const auto rows = lines_of(read_file(dir / "o/results.csv"));
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].rfind("point,base_seed,repeat,seed,status,", 0) == 0);
  CHECK(contains(rows[1], ",3,0,3,ok"));
  CHECK(contains(rows[2], ",5,0,5,ok"));
}

namespace {

// The processes whose parent is `parent` (from /proc/<pid>/stat's fourth field).
std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> found;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "stat");
    std::string stat;
    std::getline(in, stat);
    const auto close = stat.rfind(')');  // the command name may hold spaces
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 2));
    char state = 0;
    long ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent && state != 'Z') found.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return found;
}

}  // namespace

TEST_CASE("sweep cli: a point that crashes is recorded with its signal, the others go on",
          "[sweep][cli]") {
  TempDir dir("rdmasim_sweep_crash");
  const std::string sweep = write_sweep(dir, {"2MB"});  // 2 points, each a process of its own
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    std::freopen("/dev/null", "w", stdout);
    std::freopen("/dev/null", "w", stderr);
    const std::string out = (dir.path() / "o").string();
    execl(kBin.c_str(), "rdmasim", "sweep", sweep.c_str(), "--out", out.c_str(), "-j", "1", "-q",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  // The first point's process, as soon as it exists, dies as a simulation that crashes would.
  bool crashed = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!crashed && std::chrono::steady_clock::now() < deadline) {
    for (const pid_t child : children_of(pid)) crashed = crashed || ::kill(child, SIGSEGV) == 0;
    if (!crashed) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  REQUIRE(crashed);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 4);  // a failed point: the batch's exit code
  // The crashed point (the first, unless it finished before it was seen) is recorded as
  // failed with its signal; the other one ran.
  int failed = 0, ok = 0;
  for (const char* id : {"000000", "000001"}) {
    const Json record = Json::parse(read_file(dir / "o/points" / id / "point.json"));
    INFO(record.dump(2));
    if (record["status"] == "failed") {
      ++failed;
      CHECK(contains(record["error"].get<std::string>(), "signal 11 (SIGSEGV"));
    } else {
      ++ok;
      CHECK(record["status"] == "ok");
    }
  }
  CHECK(failed == 1);
  CHECK(ok == 1);
  const auto rows = lines_of(read_file(dir / "o/results.csv"));
  REQUIRE(rows.size() == 3);
  CHECK(contains(rows[1] + rows[2], ",failed,"));
  CHECK(contains(rows[1] + rows[2], ",ok,"));
  // --resume keeps both records: nothing runs again, nothing crashes, exit code 4 again.
  const Run resumed = rdmasim({"sweep", sweep, "--out", "o", "--resume"}, dir);
  INFO(resumed.out << resumed.err);
  CHECK(resumed.exit_code == 4);
  CHECK(contains(resumed.out, "2 points, 1 ok, 1 failed, 0 not run"));
}

TEST_CASE("plot: a run's FCT CDFs and a collective's busbw against size, in human units", "[cli]") {
  if (!matplotlib_available()) return;
  TempDir dir("rdmasim_plot_run");
  const std::string source = RDMASIM_SOURCE_DIR;
  REQUIRE(rdmasim({"run", source + "/scenarios/quickstart.json", "-q", "-o", "q"}, dir).exit_code ==
          0);
  const Run fct = rdmasim({"plot", "q", "--fct-cdf", "-o", "fct.png"}, dir);
  INFO(fct.out << fct.err);
  CHECK(fct.exit_code == 0);
  // 20 flows of up to 1.2 ms: drawn in ms, a line per workload (incast, permutation).
  CHECK(contains(fct.out, "CDFs of 20 flows' completion time (ms) and slowdown, 2 line(s)"));
  CHECK(read_file(dir / "fct.png").substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
  const Run by_src = rdmasim({"plot", "q", "--fct-cdf", "--by", "src", "-o", "src.png"}, dir);
  CHECK(contains(by_src.out, "16 line(s)"));  // every host sends (the permutation)

  REQUIRE(
      rdmasim({"run", source + "/scenarios/allreduce-oversubscribed.json", "-q", "-o", "a"}, dir)
          .exit_code == 0);
  const Run busbw = rdmasim({"plot", "a", "--busbw", "-o", "busbw.png"}, dir);
  INFO(busbw.out << busbw.err);
  CHECK(busbw.exit_code == 0);
  CHECK(
      contains(busbw.out, "bus bandwidth (GB/s) against message size of 1 collective(s), 5 sizes"));
  CHECK(fs::file_size(dir / "busbw.png") > 10000);

  // Refused with exit 2 and nothing written: a run without collectives, a sweep's options
  // with a run's plot, both plots at once.
  const Run none = rdmasim({"plot", "q", "--busbw", "-o", "x.png"}, dir);
  CHECK(none.exit_code == 2);
  CHECK(contains(none.err, "no collectives.csv in this folder"));
  CHECK(rdmasim({"plot", "q", "--fct-cdf", "--x", "size", "-o", "x.png"}, dir).exit_code == 2);
  CHECK(rdmasim({"plot", "q", "--fct-cdf", "--busbw", "-o", "x.png"}, dir).exit_code == 2);
  CHECK_FALSE(fs::exists(dir / "x.png"));
}
