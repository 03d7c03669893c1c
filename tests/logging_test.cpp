// The log (sim/logging.hpp) and a run's warnings (scenarios/run/run_warnings.hpp): levels,
// --log-level and --log-file on any command, warnings on stderr by default, in the log file
// and in summary.json's `warnings`; a clean run has none.
#include "sim/logging.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"
#include "scenario_helpers.hpp"
#include "temp_dir.hpp"

namespace {

using Json = nlohmann::json;
using test_support::contains;
using test_support::rdmasim;
using test_support::read_file;
using test_support::Run;
using test_support::TempDir;

const std::string kScenarios = RDMASIM_SOURCE_DIR "/scenarios/";

bool has_warning(const scen::RunOutcome& out, const std::string& code) {
  for (const auto& w : out.warnings) {
    if (w.code == code) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("logging: level names, the file sink, its refusal", "[unit][logging]") {
  sim::LogLevel l = sim::LogLevel::Off;
  for (const char* name : {"trace", "debug", "info", "warn", "error", "off"}) {
    INFO(name);
    REQUIRE(sim::parse_log_level(name, l));
    CHECK(std::string(sim::to_string(l)) == name);
  }
  CHECK(sim::parse_log_level("warning", l));
  CHECK(l == sim::LogLevel::Warn);
  CHECK_FALSE(sim::parse_log_level("loud", l));
  TempDir dir("rdmasim_log");
  const std::string file = (dir / "a.log").string();
  sim::configure_logging(sim::LogLevel::Info, file);
  CHECK(sim::log_enabled(sim::LogLevel::Info));
  CHECK_FALSE(sim::log_enabled(sim::LogLevel::Debug));
  sim::log_debug("not this one");
  sim::log_info("this one");
  sim::reset_logging();
  const std::string text = read_file(dir / "a.log");
  CHECK(contains(text, "[info] this one"));
  CHECK_FALSE(contains(text, "not this one"));
  CHECK_FALSE(sim::log_enabled(sim::LogLevel::Info));  // back to warnings only
  CHECK_THROWS_WITH(sim::configure_logging(sim::LogLevel::Info, (dir / "a.log" / "x.log").string()),
                    Catch::Contains("cannot open log file"));
  sim::reset_logging();
}

TEST_CASE("warnings: a deadlock, a run stopped with work left, none on a clean run",
          "[mechanism][logging]") {
  sim::configure_logging(sim::LogLevel::Off);  // keep the test's stderr quiet
  const scen::RunOutcome deadlock =
      scen::run_scenario(scen::load_scenario_file(kScenarios + "deadlock-ring4.json"));
  CHECK(has_warning(deadlock, "pfc-deadlock"));
  // stop.time before the flows can finish.
  scen::LoadOptions early;
  early.sets = {"stop.time=20us"};
  const scen::RunOutcome cut =
      scen::run_scenario(scen::load_scenario_file(kScenarios + "quickstart.json", early));
  REQUIRE(cut.reason == sim::StopReason::TimeLimit);
  CHECK(has_warning(cut, "stopped-at-time-limit"));
  const scen::RunOutcome clean =
      scen::run_scenario(scen::load_scenario_file(kScenarios + "quickstart.json"));
  CHECK(clean.warnings.empty());
  sim::reset_logging();
}

TEST_CASE("warnings: on stderr by default, in --log-file, in summary.json, --log-level checked",
          "[cli][logging]") {
  TempDir dir("rdmasim_log_cli");
  const Run r = rdmasim({"run", kScenarios + "deadlock-ring4.json", "-o", "out", "-q"}, dir);
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.err, "rdmasim: warning: 1 PFC deadlock(s) found"));
  const Json summary = Json::parse(read_file(dir / "out/summary.json"));
  REQUIRE(summary["warnings"].is_array());
  REQUIRE(summary["warnings"].size() == 1);
  CHECK(summary["warnings"][0]["code"] == "pfc-deadlock");
  // The log file, at info: the run's start and end too (stderr gets the same level).
  const Run logged = rdmasim({"run", kScenarios + "quickstart.json", "-o", "out2", "-q",
                              "--log-level=info", "--log-file", "run.log"},
                             dir);
  REQUIRE(logged.exit_code == 0);
  const std::string log = read_file(dir / "run.log");
  CHECK(contains(log, "[info] scenario quickstart (seed"));
  CHECK(contains(log, "simulated until"));
  CHECK(Json::parse(read_file(dir / "out2/summary.json"))["warnings"].empty());
  // Off: nothing on stderr.
  const Run quiet = rdmasim(
      {"--log-level", "off", "run", kScenarios + "deadlock-ring4.json", "-o", "out3", "-q"}, dir);
  REQUIRE(quiet.exit_code == 0);
  CHECK(quiet.err.empty());
  // A bad level or an unwritable file: exit 2 before anything runs.
  const Run bad = rdmasim({"run", kScenarios + "quickstart.json", "--log-level", "loud"}, dir);
  CHECK(bad.exit_code == 2);
  CHECK(contains(bad.err, "--log-level loud"));
  // (spdlog makes missing folders; a file in the way it cannot.)
  const Run nofile =
      rdmasim({"check", kScenarios + "quickstart.json", "--log-file", "run.log/x.log"}, dir);
  CHECK(nofile.exit_code == 2);
  CHECK(contains(nofile.err, "cannot open log file"));
}
