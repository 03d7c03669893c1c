// The NICs' PCIe path (models/host_path.hpp): doorbell, DMA read, DMA write latencies and the
// PCIe rate, fabric-wide and per GPU server / rail.
#include <catch2/catch.hpp>

#include "scenario_helpers.hpp"
#include "scenarios/loader/input_error.hpp"
#include "scenarios/loader/param_registry.hpp"
#include "scenarios/loader/params.hpp"
#include "sim/units.hpp"

namespace {

int64_t ser_ps(int64_t bytes, int64_t rate_bps) {
  const __int128 num = static_cast<__int128>(bytes) * 8 * 1000000000000LL;
  return static_cast<int64_t>((num + rate_bps - 1) / rate_bps);
}

scen::Json chain_flow(int64_t bytes, const std::string& rate, const scen::Json& host) {
  scen::Json j;
  j["name"] = "host-path";
  j["topology"] = test_support::chain_topology({rate, rate}, {"1us", "1us"});
  j["fabric"]["switch"] = {{"latency", "450ns"}};
  j["fabric"]["nic"] = {{"ack_every", 1 << 20}};
  for (const auto& [k, v] : host.items()) j["fabric"]["nic"][k] = v;
  j["workload"]["flows"] = {{{"src", "h0"}, {"dst", "h1"}, {"size", bytes}, {"start", "2us"}}};
  return j;
}

scen::FlowResult one_flow(const scen::Json& j) {
  const scen::RunOutcome out = scen::run_scenario(test_support::load(j));
  REQUIRE(out.flows.size() == 1);
  REQUIRE(out.flows[0].completed);
  return out.flows[0];
}

// Two servers of 2 GPUs and 2 NICs (rails) at 100 Gb/s; NIC k of server s is n<s>r<k>.
scen::Json two_servers(const scen::Json& nodes_extra, const std::string& src,
                       const std::string& dst, int64_t bytes) {
  scen::Json nodes = {{"count", 2}, {"preset", "generic"},   {"gpus", 2},
                      {"nics", 2},  {"nic_rate", "100Gbps"}, {"nvlink_rate", "800Gbps"}};
  for (const auto& [k, v] : nodes_extra.items()) nodes[k] = v;
  scen::Json j;
  j["name"] = "host-path-servers";
  j["topology"] = {{"generator", "rail"},      {"nodes", nodes},
                   {"nodes_per_leaf", 2},      {"spines", 1},
                   {"fabric_rate", "100Gbps"}, {"host_latency", "500ns"},
                   {"fabric_latency", "500ns"}};
  j["fabric"]["nic"] = {{"ack_every", 1 << 20}};
  j["workload"]["flows"] = {{{"src", src}, {"dst", dst}, {"size", bytes}, {"start", "0us"}}};
  return j;
}

double gbps(const scen::FlowResult& f) {
  return static_cast<double>(f.bytes) * 8.0 / (static_cast<double>(f.fct.ps) * 1e-12) / 1e9;
}

}  // namespace

TEST_CASE("host path: a single message's latency adds the hand-computed PCIe terms",
          "[mechanism][host_path]") {
  // One 1000-byte packet (MTU 4096): doorbell + DMA read round trip + the payload read at the
  // PCIe rate before it leaves; at the receiver the DMA write latency + the payload written
  // at the PCIe rate before it is delivered and acknowledged.
  const scen::Json host = {{"doorbell_latency", "300ns"},
                           {"dma_read_latency", "500ns"},
                           {"dma_write_latency", "250ns"},
                           {"pcie_rate", "50Gbps"}};
  for (int64_t bytes : {int64_t{1}, int64_t{1000}, int64_t{4096}}) {
    const scen::FlowResult off = one_flow(chain_flow(bytes, "100Gbps", scen::Json::object()));
    const scen::FlowResult on = one_flow(chain_flow(bytes, "100Gbps", host));
    const int64_t pcie = ser_ps(bytes, 50'000'000'000);
    const int64_t expected = off.fct.ps + 300'000 + 500'000 + pcie + 250'000 + pcie;
    INFO("bytes " << bytes);
    CHECK(on.fct.ps == expected);
    CHECK(on.ideal_fct.ps == on.fct.ps);  // flows.csv's ideal FCT knows the host path
    // Each term on its own.
    for (const auto& [key, value, added] :
         std::vector<std::tuple<std::string, std::string, int64_t>>{
             {"doorbell_latency", "300ns", 300'000},
             {"dma_read_latency", "500ns", 500'000},
             {"dma_write_latency", "250ns", 250'000},
             {"pcie_rate", "50Gbps", 2 * pcie}}) {
      const scen::FlowResult one = one_flow(chain_flow(bytes, "100Gbps", {{key, value}}));
      INFO(key);
      CHECK(one.fct.ps == off.fct.ps + added);
    }
  }
}

TEST_CASE("host path: a PCIe rate below line rate caps a flow's throughput",
          "[mechanism][host_path]") {
  // Steady-state rate: the extra bytes of a longer flow over its extra time (the fixed
  // latencies cancel).
  auto rate_gbps = [](const scen::Json& host) {
    const scen::FlowResult a = one_flow(chain_flow(4 << 20, "400Gbps", host));
    const scen::FlowResult b = one_flow(chain_flow(8 << 20, "400Gbps", host));
    CHECK(a.fct.ps == a.ideal_fct.ps);  // flows.csv's ideal FCT follows the PCIe pipeline
    CHECK(b.fct.ps == b.ideal_fct.ps);
    return static_cast<double>(b.bytes - a.bytes) * 8.0 /
           (static_cast<double>((b.fct - a.fct).ps) * 1e-12) / 1e9;
  };
  // Line rate: the payload share of the wire (4096 of 4178 bytes) of 400 Gb/s.
  const double line = rate_gbps(scen::Json::object());
  CHECK(line == Approx(400.0 * 4096 / 4178).epsilon(0.001));
  // PCIe Gen4 x16 (230 Gb/s of payload) below it: the NIC sends, and the host takes, 230.
  CHECK(rate_gbps({{"pcie_rate", "230Gbps"}}) == Approx(230.0).epsilon(0.001));
  // Above line rate the PCIe path costs only its pipeline fill, not throughput.
  CHECK(rate_gbps({{"pcie_rate", "460Gbps"}}) == Approx(line).epsilon(0.001));
}

TEST_CASE("host path: GPU servers set it per server and per rail, NVLink has none",
          "[mechanism][host_path][gpu]") {
  const int64_t bytes = 4 << 20;
  // Server 1's rail 1 has a PCIe Gen4 x8-like 100 Gb/s... set to 50 Gb/s: the receive side
  // (DMA writes) of n1r1 caps a flow into it; rail 0 (n1r0) keeps the server's Gen5 path.
  const scen::Json extra = {
      {"host_path", "pcie-gen5-x16"},
      {"host_path_overrides", {{{"servers", {1}}, {"rails", {1}}, {"pcie_rate", "50Gbps"}}}}};
  const scen::FlowResult capped = one_flow(two_servers(extra, "n0r1", "n1r1", bytes));
  const scen::FlowResult free = one_flow(two_servers(extra, "n0r0", "n1r0", bytes));
  CHECK(gbps(capped) == Approx(50.0).epsilon(0.01));
  CHECK(gbps(free) == Approx(100.0 * 4096 / 4178).epsilon(0.02));
  CHECK(capped.fct.ps == capped.ideal_fct.ps);
  // The preset's latencies are on rail 0: its FCT exceeds the plain one by at least them.
  const scen::FlowResult plain = one_flow(two_servers(scen::Json::object(), "n0r0", "n1r0", bytes));
  CHECK(free.fct.ps >= plain.fct.ps + 300'000 + 500'000 + 250'000);
  // NVLink endpoints cross no PCIe: a fabric-wide host path leaves them alone.
  scen::Json nv = two_servers(scen::Json::object(), "n0g0", "n0g1", bytes);
  const scen::FlowResult nv_plain = one_flow(nv);
  nv["fabric"]["nic"]["pcie_rate"] = "10Gbps";
  nv["fabric"]["nic"]["doorbell_latency"] = "1us";
  const scen::FlowResult nv_host = one_flow(nv);
  CHECK(nv_host.fct.ps == nv_plain.fct.ps);
}

TEST_CASE("host path: bad input names the path, parameters are listed", "[mechanism][host_path]") {
  auto refused = [](const scen::Json& j, const std::string& path) {
    try {
      (void)test_support::load(j);
      FAIL("accepted " << j.dump());
    } catch (const scen::InputError& e) {
      CHECK(e.path == path);
    }
  };
  refused(two_servers({{"host_path", "pcie-gen7"}}, "n0r0", "n1r0", 1000),
          "topology.nodes.host_path");
  refused(two_servers({{"host_path_overrides", {{{"rails", {2}}}}}}, "n0r0", "n1r0", 1000),
          "topology.nodes.host_path_overrides[0].rails[0]");
  refused(two_servers({{"host_path_overrides", {{{"servers", {5}}}}}}, "n0r0", "n1r0", 1000),
          "topology.nodes.host_path_overrides[0].servers[0]");
  refused(two_servers({{"host_path", {{"pcie_rate", "-5Gbps"}}}}, "n0r0", "n1r0", 1000),
          "topology.nodes.host_path.pcie_rate");
  refused(chain_flow(1000, "100Gbps", {{"dma_read_latency", "fast"}}),
          "fabric.nic.dma_read_latency");
  const std::string list = scen::list_parameters();
  for (const char* key : {"fabric.nic.doorbell_latency", "fabric.nic.dma_read_latency",
                          "fabric.nic.dma_write_latency", "fabric.nic.pcie_rate",
                          "topology.nodes.host_path.pcie_rate"}) {
    CHECK(list.find(key) != std::string::npos);
  }
}
