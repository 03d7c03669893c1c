// `rdmasim run` asks for transparent huge pages where the kernel grants them on request
// (sim/huge_pages.hpp), and nothing but its speed changes.
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"
#include "temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using test_support::rdmasim;
using test_support::read_file;
using test_support::Run;
using test_support::TempDir;

bool thp_on_request() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  return std::getline(in, line) && line.find("[madvise]") != std::string::npos;
}

}  // namespace

TEST_CASE("huge pages: a run's memory is in transparent huge pages unless the tunable says 0",
          "[cli]") {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  std::printf("SKIPPED: a sanitizer build allocates with its own allocator, not glibc's malloc\n");
  return;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
  std::printf("SKIPPED: a sanitizer build allocates with its own allocator, not glibc's malloc\n");
  return;
#endif
#endif
  if (!thp_on_request()) {
    std::printf("SKIPPED: this kernel does not grant transparent huge pages on request\n");
    return;
  }
  TempDir dir;
  // 1,024 hosts for 20 us: tens of MB of ports, queues, links and packets.
  const std::vector<std::string> run{
      "run",   RDMASIM_SOURCE_DIR "/scenarios/permutation-fattree-1024.json",
      "--set", "stop.time=20us",
      "-q",    "--out"};
  auto with = [&](const std::string& out, const std::string& env) {
    std::vector<std::string> args = run;
    args.push_back(out);
    const Run r = rdmasim(args, dir, env);
    REQUIRE(r.exit_code == 0);
    return Json::parse(read_file(dir / out / "run_stats.json"))["huge_pages_mb"].get<double>();
  };
  CHECK(with("huge", "") > 2.0);
  // The user's other tunables are kept beside it.
  CHECK(with("kept", "GLIBC_TUNABLES=glibc.malloc.tcache_count=7") > 2.0);
  CHECK(with("small", "GLIBC_TUNABLES=glibc.malloc.hugetlb=0") == 0.0);
  for (const auto& e : fs::directory_iterator(dir / "huge")) {
    const std::string name = e.path().filename().string();
    if (name == "run_stats.json") continue;
    INFO(name);
    CHECK(read_file(e.path()) == read_file(dir / "small" / name));
  }
}
