// One packet at a time on a wire: a port asked to send while it is choosing or starting a
// packet serves the request with that packet (EgressPort::request_send). Two ways a request
// comes then, each of which put a second packet on the wire before the guard: DCQCN's byte
// counter raising a QP's rate while its NIC builds the packet (the NIC wakes its port), and a
// packet leaving by the port it came in, whose buffer release sends a PFC resume out of that
// same port. Every run checks the wires (packet_conservation.cpp) and throws on an overlap.
#include <catch2/catch.hpp>

#include "scenario_helpers.hpp"

TEST_CASE("wire: a rate change while the NIC builds a packet does not start a second one",
          "[mechanism][pfc]") {
  // Five hosts on one switch; h0 and h1 each send two flows (two QPs in their NICs' round
  // robin), DCQCN with the firmware's byte counter (every 32,767 bytes an increase event).
  scen::Json j;
  j["name"] = "wire";
  j["topology"] = test_support::star(5);
  j["fabric"] = {{"switch", {{"buffer", "4MB"}}},
                 {"pfc", {{"enabled", true}, {"xoff", "100KB"}}},
                 {"ecn", {{"enabled", true}, {"kmin", "20KB"}, {"kmax", "200KB"}, {"pmax", 0.2}}},
                 {"dcqcn", {{"enabled", true}, {"preset", "nvidia-default"}}}};
  j["workload"]["flows"] = {{{"src", "h0"}, {"dst", "h4"}, {"size", "4MB"}},
                            {{"src", "h0"}, {"dst", "h3"}, {"size", "4MB"}},
                            {{"src", "h1"}, {"dst", "h4"}, {"size", "4MB"}},
                            {{"src", "h2"}, {"dst", "h4"}, {"size", "4MB"}},
                            {{"src", "h1"}, {"dst", "h3"}, {"size", "4MB"}}};
  scen::RunOutcome out;
  REQUIRE_NOTHROW(out = scen::run_scenario(test_support::load(j)));
  CHECK(out.results["flows_completed"] == 5);
  CHECK(out.results["dcqcn"]["rate_increases"].get<uint64_t>() > 0);
  CHECK(out.results["drops"]["lossless"] == 0);
}

TEST_CASE("wire: a resume sent out of the port a packet is leaving by waits for the wire",
          "[mechanism][pfc]") {
  // The routing loop of deadlock-routing-loop.json: packets bounce between two switches, each
  // leaving by the port it came in; its dequeue releases buffer and resumes that ingress.
  scen::RunOutcome out;
  REQUIRE_NOTHROW(out = scen::run_scenario(scen::load_scenario_file(
                      std::string(RDMASIM_SOURCE_DIR) + "/scenarios/deadlock-routing-loop.json")));
  CHECK(out.results["pfc"]["pause_frames"].get<uint64_t>() > 0);
}
