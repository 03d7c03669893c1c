// Where a run's results go (scenarios/outputs/output_folder.hpp): an --out or --timeline that
// cannot take them is refused before the simulation (exit 2, nothing written); a second run
// into a folder leaves no file of the first; a folder of other files is refused unless --force.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli_runner.hpp"
#include "temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using test_support::contains;
using test_support::rdmasim;
using test_support::Run;
using test_support::TempDir;

const std::string kQuickstart = RDMASIM_SOURCE_DIR "/scenarios/quickstart.json";

void touch(const fs::path& p, const std::string& text = "x\n") {
  std::ofstream(p) << text;
}

}  // namespace

TEST_CASE("output folder: a file as --out or a folder as --timeline is refused before running",
          "[cli][outputs]") {
  TempDir dir("rdmasim_outdir");
  touch(dir / "results");
  const Run r = rdmasim({"run", kQuickstart, "--out", (dir / "results").string()}, dir);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  CHECK(contains(r.err, "--out"));
  CHECK(contains(r.err, "this is a file"));
  CHECK_FALSE(contains(r.out, "goodput"));  // no simulation, no headline

  fs::create_directories(dir / "tl");
  const Run t = rdmasim(
      {"run", kQuickstart, "--out", (dir / "o").string(), "--timeline", (dir / "tl").string()},
      dir);
  INFO(t.err);
  CHECK(t.exit_code == 2);
  CHECK(contains(t.err, "--timeline"));
  CHECK_FALSE(fs::exists(dir / "o"));  // nothing created

  // A folder that cannot be created: its parent is a file.
  const Run c = rdmasim({"run", kQuickstart, "--out", (dir / "results" / "run").string()}, dir);
  INFO(c.err);
  CHECK(c.exit_code == 2);
  CHECK(contains(c.err, "is not a folder"));

  if (geteuid() != 0) {  // root writes anywhere
    fs::create_directories(dir / "locked");
    fs::permissions(dir / "locked", fs::perms::owner_read | fs::perms::owner_exec);
    const Run p = rdmasim({"run", kQuickstart, "--out", (dir / "locked" / "run").string()}, dir);
    INFO(p.err);
    CHECK(p.exit_code == 2);
    CHECK(contains(p.err, "--out"));
    const Run q = rdmasim({"run", kQuickstart, "--out", (dir / "o").string(), "--timeline",
                           (dir / "locked" / "t.json").string()},
                          dir);
    CHECK(q.exit_code == 2);
    fs::permissions(dir / "locked", fs::perms::owner_all);
  }
}

TEST_CASE("output folder: a second run leaves no file of the first, other files stay",
          "[cli][outputs]") {
  TempDir dir("rdmasim_outdir");
  const fs::path out = dir / "run";
  const Run first = rdmasim(
      {"run", kQuickstart, "--out", out.string(), "-q", "--set", "fabric.pfc.enabled=true"}, dir);
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  REQUIRE(fs::exists(out / "pfc.csv"));
  touch(out / "notes.txt");
  const Run second = rdmasim(
      {"run", kQuickstart, "--out", out.string(), "-q", "--set", "fabric.pfc.enabled=false"}, dir);
  INFO(second.err);
  REQUIRE(second.exit_code == 0);
  CHECK_FALSE(fs::exists(out / "pfc.csv"));
  CHECK_FALSE(fs::exists(out / "deadlocks.json"));
  CHECK(fs::exists(out / "summary.json"));
  CHECK(fs::exists(out / "notes.txt"));
}

TEST_CASE("output folder: a folder of other files is refused, --force writes into it",
          "[cli][outputs]") {
  TempDir dir("rdmasim_outdir");
  const fs::path out = dir / "mine";
  fs::create_directories(out);
  touch(out / "thesis.tex");
  const Run r = rdmasim({"run", kQuickstart, "--out", out.string(), "-q"}, dir);
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(contains(r.err, "--force"));
  CHECK_FALSE(fs::exists(out / "summary.json"));
  const Run f = rdmasim({"run", kQuickstart, "--out", out.string(), "-q", "--force"}, dir);
  INFO(f.err);
  CHECK(f.exit_code == 0);
  CHECK(fs::exists(out / "summary.json"));
  CHECK(fs::exists(out / "thesis.tex"));
  // Now it holds an earlier run: the next run needs no --force.
  CHECK(rdmasim({"run", kQuickstart, "--out", out.string(), "-q"}, dir).exit_code == 0);
  // An empty folder is fine too.
  fs::create_directories(dir / "empty");
  CHECK(rdmasim({"run", kQuickstart, "--out", (dir / "empty").string(), "-q"}, dir).exit_code == 0);
}
