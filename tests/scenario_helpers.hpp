// Building small scenarios in tests: chains and stars of switches as inline JSON.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "scenarios/loader/scenario.hpp"
#include "scenarios/run/run_scenario.hpp"

namespace test_support {

// h0 - s1 - s2 - ... - sK - h1, link i with rates[i] and latencies[i] (K = rates.size() - 1).
inline scen::Json chain_topology(const std::vector<std::string>& rates,
                                 const std::vector<std::string>& latencies) {
  scen::Json t;
  t["nodes"] =
      scen::Json::array({{{"name", "h0"}, {"kind", "host"}}, {{"name", "h1"}, {"kind", "host"}}});
  const size_t switches = rates.size() - 1;
  for (size_t k = 1; k <= switches; ++k) {
    t["nodes"].push_back({{"name", "s" + std::to_string(k)}, {"kind", "switch"}});
  }
  for (size_t i = 0; i < rates.size(); ++i) {
    const std::string a = i == 0 ? "h0" : "s" + std::to_string(i);
    const std::string b = i == switches ? "h1" : "s" + std::to_string(i + 1);
    t["links"].push_back({{"a", a}, {"b", b}, {"rate", rates[i]}, {"latency", latencies[i]}});
  }
  return t;
}

// n hosts h0..h(n-1) on one switch s0, every link at `rate` with `latency`.
inline scen::Json star(int n, const std::string& rate = "100Gbps",
                       const std::string& latency = "1us") {
  scen::Json t;
  t["nodes"] = scen::Json::array({{{"name", "s0"}, {"kind", "switch"}}});
  for (int h = 0; h < n; ++h) {
    t["nodes"].push_back({{"name", "h" + std::to_string(h)}, {"kind", "host"}});
    t["links"].push_back(
        {{"a", "h" + std::to_string(h)}, {"b", "s0"}, {"rate", rate}, {"latency", latency}});
  }
  return t;
}

// A scenario named `name` of `servers` dgx-h100 servers (8 H100s, 8 NICs each) on one
// rail-optimised leaf per rail, two spines, 400G links, 500 ns cables, 600 ns switches.
inline scen::Json dgx_rail_cluster(const std::string& name, int servers) {
  scen::Json j;
  j["name"] = name;
  j["topology"] = {
      {"generator", "rail"},       {"nodes", {{"count", servers}, {"preset", "dgx-h100"}}},
      {"nodes_per_leaf", servers}, {"spines", 2},
      {"fabric_rate", "400Gbps"},  {"host_latency", "500ns"},
      {"fabric_latency", "500ns"}};
  j["fabric"]["switch"] = {{"latency", "600ns"}, {"buffer", "32MB"}};
  return j;
}

inline scen::Scenario load(const scen::Json& j) {
  return scen::load_scenario_json(j, ".", {});
}

// The JSON path a refusal of `j` names, or "accepted".
inline std::string refused_path(const scen::Json& j) {
  try {
    (void)load(j);
  } catch (const scen::InputError& e) {
    return e.path;
  }
  return "accepted";
}

// The links.csv row of the direction from -> to (throws if there is none).
inline const scen::LinkResult& link_between(const scen::RunOutcome& out, const std::string& from,
                                            const std::string& to) {
  for (const auto& l : out.links) {
    if (l.from == from && l.to == to) return l;
  }
  throw std::runtime_error("no link " + from + " -> " + to);
}

// On a rail-optimised cluster of GPU servers (server s's NIC on rail r is "n<s>r<r>", its
// leaf "rail<r>_leaf0"): the link from that NIC to its leaf, or from the leaf to it.
inline const scen::LinkResult& rail_nic_link(const scen::RunOutcome& out, int server, int rail,
                                             bool from_nic = true) {
  const std::string nic = "n" + std::to_string(server) + "r" + std::to_string(rail);
  const std::string leaf = "rail" + std::to_string(rail) + "_leaf0";
  return from_nic ? link_between(out, nic, leaf) : link_between(out, leaf, nic);
}

// An all-reduce of `size` bytes by `algorithm`, without NCCL's software costs.
inline scen::Json allreduce_without_costs(const char* algorithm, int64_t size) {
  return {{"op", "all_reduce"}, {"algorithm", algorithm}, {"size", size}, {"costs", "none"}};
}

}  // namespace test_support
