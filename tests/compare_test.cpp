// rdmasim compare: two flows.csv side by side. Oracle: FCTs scaled by a known factor give that
// error at every percentile; runs of different scenarios and malformed files are refused.
#include <catch2/catch.hpp>

#include "tests/cli_runner.hpp"
#include "tests/temp_dir.hpp"
#include "tools/calibration/flows_table.hpp"

namespace {

const char* kHeader =
    "flow_id,tag,src,dst,bytes,priority,qps,start_ns,finish_ns,fct_ns,ideal_fct_ns,slowdown,"
    "retransmitted_packets,timeouts,completed\n";

// Flows 0..n-1 of 1 MB from h0 to h1 with FCT (k + 1) x `unit_ns`.
std::string flows(int n, double unit_ns, int64_t bytes = 1000000) {
  std::string s = kHeader;
  for (int k = 0; k < n; ++k) {
    char buf[200];
    const double fct = (k + 1) * unit_ns;
    std::snprintf(buf, sizeof buf, "%d,flows,h0,h1,%lld,3,1,0.000,%.3f,%.3f,1000.000,1.000,0,0,1\n",
                  k, static_cast<long long>(bytes), fct, fct);
    s += buf;
  }
  return s;
}

}  // namespace

TEST_CASE("compare puts FCT percentiles side by side with the error", "[cli][compare]") {
  const test_support::TempDir dir("rdmasim_compare");
  std::filesystem::create_directories(dir / "sim");
  dir.write("sim/flows.csv", flows(100, 1000));
  dir.write("real.csv", flows(100, 1250));
  const auto sim = calib::read_flows_csv((dir / "sim").string());
  const auto real = calib::read_flows_csv((dir / "real.csv").string());
  REQUIRE(sim.size() == 100);
  CHECK(sim[49].fct_ps == 50'000'000);
  const calib::FctComparison c = calib::compare_fct(sim, real, "sim", "real");
  CHECK(c.matched == 100);
  for (const auto& l : c.lines) {
    INFO(l.statistic);
    CHECK(l.error_pct == Approx(-20.0));  // 1000 / 1250 - 1
  }
  CHECK(c.lines[0].sim_us == Approx(50.0));     // p50: the 50th of 100
  CHECK(c.lines[2].real_us == Approx(123.75));  // p99: 99 x 1.25 us
  CHECK(c.per_flow_mape_pct == Approx(20.0));

  const auto run = test_support::rdmasim({"compare", "sim", "real.csv"}, dir);
  REQUIRE(run.exit_code == 0);
  CHECK(test_support::contains(run.out, "p99"));
  CHECK(test_support::contains(run.out, "-20.0%"));
}

TEST_CASE("compare refuses runs of different scenarios and malformed files", "[cli][compare]") {
  const test_support::TempDir dir("rdmasim_compare_bad");
  dir.write("a.csv", flows(3, 1000));
  dir.write("b.csv", flows(3, 1000, 2000000));
  const auto diff = test_support::rdmasim({"compare", "a.csv", "b.csv"}, dir);
  CHECK(diff.exit_code == 2);
  CHECK(test_support::contains(diff.err, "same flow"));
  dir.write("c.csv", std::string(kHeader) + "0,flows,h0,h1,1000,3,1,0.000,12x.5\n");
  const auto bad = test_support::rdmasim({"compare", "a.csv", "c.csv"}, dir);
  CHECK(bad.exit_code == 2);
  CHECK(test_support::contains(bad.err, "c.csv:2"));
  const auto one = test_support::rdmasim({"compare", "a.csv"}, dir);
  CHECK(one.exit_code == 2);
  // Against a run with no flow: no 0 % error, a refusal.
  dir.write("empty.csv", kHeader);
  const auto empty = test_support::rdmasim({"compare", "a.csv", "empty.csv"}, dir);
  CHECK(empty.exit_code == 2);
  CHECK(test_support::contains(empty.err, "no completed flow"));
  // A flow id twice, and a completed flow of FCT 0.
  dir.write("dup.csv", flows(3, 1000) +
                           "1,flows,h0,h1,1000000,3,1,0.000,5.000,5.000,1000.000,"
                           "1.000,0,0,1\n");
  const auto dup = test_support::rdmasim({"compare", "a.csv", "dup.csv"}, dir);
  CHECK(dup.exit_code == 2);
  CHECK(test_support::contains(dup.err, "dup.csv:5"));
  CHECK(test_support::contains(dup.err, "each flow id once"));
  dir.write("zero.csv", std::string(kHeader) +
                            "0,flows,h0,h1,1000000,3,1,0.000,0.000,0.000,1000.000,1.000,0,0,1\n");
  const auto zero = test_support::rdmasim({"compare", "a.csv", "zero.csv"}, dir);
  CHECK(zero.exit_code == 2);
  CHECK(test_support::contains(zero.err, "positive fct_ns"));
}
