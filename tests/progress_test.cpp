// The progress line (scenarios/run/progress_line.hpp) goes by the work when the workload is
// finite: a collective's work done grows with its calls and messages, and the ETA follows the
// share done, not a far safety limit.
#include <catch2/catch.hpp>

#include "models/collectives/collective_runner.hpp"
#include "scenario_helpers.hpp"
#include "scenarios/builder/build_network.hpp"
#include "scenarios/run/progress_line.hpp"

TEST_CASE("progress: the share and the ETA are of the work", "[cli][progress]") {
  const std::string line = scen::ProgressLine::text(1500.0, 0.25, true, 10.0, 2e7);
  INFO(line);
  CHECK(line.find("25.0 % of the work") != std::string::npos);
  CHECK(line.find("ETA 30s") != std::string::npos);  // 10 s for a quarter: 30 s to go
  CHECK(line.find("2.00 M events/s") != std::string::npos);
  const std::string by_time = scen::ProgressLine::text(1500.0, 0.001, false, 10.0, 2e7);
  CHECK(by_time.find("0.1 % of the stop time") != std::string::npos);
  CHECK(scen::ProgressLine::text(1.0, -1, false, 3.0, 1e6).find("ETA") == std::string::npos);
}

TEST_CASE("progress: a collective's work done follows its calls and messages", "[cli][progress]") {
  scen::Json j;
  j["name"] = "progress";
  j["topology"] = test_support::star(8);
  j["workload"]["collective"] = {{"op", "all_reduce"},
                                 {"algorithm", "ring"},
                                 {"min", "1MiB"},
                                 {"max", "4MiB"},
                                 {"chunk", "256KiB"}};
  const scen::Scenario s = test_support::load(j);
  // The whole run's end, then the same run stopped at fractions of it.
  sim::Time end;
  {
    sim::Simulator sim(s.seed);
    auto net = scen::build_network(s, sim);
    models::CollectiveRunner runner(net->ctx, *net->transport, s.collectives.at(0), 0, s.seed);
    runner.start();
    sim.run(sim::Time(1'000'000'000'000));
    REQUIRE(runner.done());
    CHECK(runner.work_done() == 1.0);
    end = runner.results().back().end;  // the simulator's clock runs on to its last timer
  }
  double previous = 0;
  for (const double at : {0.1, 0.5, 0.9}) {
    sim::Simulator sim(s.seed);
    auto net = scen::build_network(s, sim);
    models::CollectiveRunner runner(net->ctx, *net->transport, s.collectives.at(0), 0, s.seed);
    runner.start();
    sim.run(sim::Time(static_cast<int64_t>(static_cast<double>(end.ps) * at)));
    const double w = runner.work_done();
    INFO("at " << at << " of the time: " << w << " of the work");
    CHECK(w > previous);
    CHECK(w < 1.0);
    // Sizes 1, 2 and 4 MiB: bytes, and so time, mostly in the last calls.
    CHECK(std::abs(w - at) < 0.25);
    previous = w;
  }
}
