// A connection's messages are one QP's work requests, served in order
// (Transport::start_flow_in_order): two messages posted together on one connection arrive one
// after the other, the first after its own serialisation; on two connections (or posted as
// independent flows) the NIC interleaves them and both arrive at the end.
#include <catch2/catch.hpp>

#include "scenario_helpers.hpp"
#include "scenarios/builder/build_network.hpp"

namespace {

struct Arrivals {
  double first_us = 0, second_us = 0;
};

// Two 1 MB messages h0 -> h1 at time 0 over a 100 Gb/s star; `sports` their UDP source ports.
Arrivals two_messages(bool in_order, uint16_t sport_a, uint16_t sport_b) {
  scen::Json j;
  j["name"] = "connection-order";
  j["topology"] = test_support::star(2, "100Gbps", "1us");
  j["workload"]["flows"] = {{{"src", "h0"}, {"dst", "h1"}, {"size", "1KB"}, {"start", "1s"}}};
  const scen::Scenario s = test_support::load(j);
  sim::Simulator sim(s.seed);
  auto net = scen::build_network(s, sim);  // the workload's flow is never started here
  models::Transport& t = *net->transport;
  models::FlowSpec fs;
  fs.src_host = 0;
  fs.dst_host = 1;
  fs.bytes = 1'000'000;
  const uint32_t a = t.add_flow(fs, 0, sport_a, /*recycle=*/true);
  const uint32_t b = t.add_flow(fs, 0, sport_b, /*recycle=*/true);
  if (in_order) {
    t.start_flow_in_order(a);
    t.start_flow_in_order(b);
  } else {
    t.start_flow(a);
    t.start_flow(b);
  }
  sim.run(sim::Time(10'000'000'000));  // 10 ms
  const models::QueuePair& qa = t.qp(t.flow(a).first_qp);
  const models::QueuePair& qb = t.qp(t.flow(b).first_qp);
  REQUIRE(qa.delivered);
  REQUIRE(qb.delivered);
  return {static_cast<double>(qa.delivered_at.ps) / 1e6,
          static_cast<double>(qb.delivered_at.ps) / 1e6};
}

}  // namespace

TEST_CASE("a connection's messages are served in order, as one QP's work requests",
          "[mechanism][transport][collective]") {
  // 1 MB at 100 Gb/s with 4 KiB packets and their headers: about 81 us each.
  const Arrivals fifo = two_messages(true, 50000, 50000);
  INFO("in order: " << fifo.first_us << " us, " << fifo.second_us << " us");
  CHECK(fifo.first_us < 0.55 * fifo.second_us);
  CHECK(fifo.second_us > 160);
  // Interleaved: posted as independent flows, or on two connections.
  const Arrivals rr = two_messages(false, 50000, 50000);
  INFO("interleaved: " << rr.first_us << " us, " << rr.second_us << " us");
  CHECK(rr.first_us > 0.95 * rr.second_us);
  const Arrivals two = two_messages(true, 50000, 50001);
  INFO("two connections: " << two.first_us << " us, " << two.second_us << " us");
  CHECK(two.first_us > 0.95 * two.second_us);
  // Either way the link carries both at its rate: the last arrival is the same.
  CHECK(std::abs(fifo.second_us - rr.second_us) < 0.01 * rr.second_us);
}
