// rdmasim check: validate a scenario and print what a network engineer checks before running
// it — the fabric's size, bisection and path diversity, and the routes of the workload.
#include <algorithm>
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <set>

#include "scenarios/builder/build_network.hpp"
#include "scenarios/loader/failures_section.hpp"
#include "scenarios/loader/memory_estimate.hpp"
#include "scenarios/loader/routing_section.hpp"
#include "scenarios/loader/scenario.hpp"
#include "sim/units.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/parse_options.hpp"
#include "topologies/analysis.hpp"
#include "topologies/buffer_dependency.hpp"
#include "topologies/route_transition.hpp"

namespace po = boost::program_options;

namespace cli {

namespace {

// Cyclic buffer dependencies among the lossless classes: the precondition of a PFC deadlock,
// found from the routes before anything runs.
// `when` names the routes checked ("" for the routes at the start).
void check_buffer_dependencies(const scen::Scenario& s, const topo::RoutingTables& routes,
                               bool all_pairs, std::vector<std::string>& problems,
                               const std::string& when = "") {
  // InfiniBand: every data VL is lossless (credits), and a flow's class there is its VL.
  const bool ib = s.fabric_kind == scen::FabricKind::Infiniband;
  const uint32_t lossless = ib ? (1u << s.ib.data_vls) - 1 : s.pfc.lossless_priorities;
  auto class_of = [&](int prio) {
    return ib ? static_cast<int>(s.ib.vl_of(static_cast<uint8_t>(prio))) : prio;
  };
  if (!s.pfc.enabled && !ib) {
    std::printf(
        "deadlock  no lossless class (PFC off): packets are dropped, never held, so no buffer "
        "dependency can deadlock\n");
    return;
  }
  std::vector<topo::RouteDemand> demands;
  const int hosts = static_cast<int>(s.fabric.host_node.size());
  if (all_pairs) {
    for (int p = 0; p < 8; ++p) {
      if (((lossless >> p) & 1u) == 0) continue;
      // With tagging, the list's later priorities carry re-tagged packets only: hosts send on
      // the first.
      const auto& tags = s.tagging_priorities;
      if (tags.size() > 1 && std::find(tags.begin() + 1, tags.end(), p) != tags.end()) continue;
      for (int a = 0; a < hosts; ++a) {
        for (int b = 0; b < hosts; ++b) {
          if (a != b) demands.push_back({a, b, p, {}});
        }
      }
    }
  } else {
    for (const auto& f : s.flows) {
      if ((lossless >> class_of(f.priority)) & 1u) {
        demands.push_back({f.src_host, f.dst_host, class_of(f.priority), f.route});
      }
    }
  }
  const auto retag = scen::valley_retag_for(s);  // Tagger's re-tagging, when on
  const topo::DependencyReport r =
      topo::buffer_dependency_cycles(s.fabric, routes, demands, 100, retag.get());
  std::printf(
      "deadlock  buffer dependency graph of %s over every ECMP next hop%s: %zu lossless ingress "
      "buffers, %zu dependencies, %s%zu cycle(s)\n",
      all_pairs ? "all host pairs" : "the workload's lossless flows",
      when.empty() ? "" : (" " + when).c_str(), r.buffers, r.dependencies,
      r.truncated ? "more than " : "", r.cycles.size());
  const size_t shown = std::min<size_t>(r.cycles.size(), 20);
  for (size_t i = 0; i < shown; ++i) {
    problems.push_back(std::string("cyclic buffer dependency (a ") + (ib ? "credit" : "PFC") +
                       " deadlock can form)" + (when.empty() ? std::string() : " " + when) + ": " +
                       topo::format_cycle(s.fabric, r.cycles[i]));
  }
  if (r.cycles.size() > shown) {
    problems.push_back("... " + std::to_string(r.cycles.size() - shown) + (r.truncated ? "+" : "") +
                       " more cyclic buffer dependencies");
  }
}

}  // namespace

int cmd_check(int argc, char** argv) {
  po::options_description opts("rdmasim check SCENARIO [options]");
  std::vector<std::string> sets;
  std::string max_memory;
  opts.add_options()("help,h", "this help")("set", po::value(&sets)->composing(),
                                            "override a value (as for run)")(
      "strict", "exit with code 3 when the check finds problems")(
      "all-pairs", "check buffer dependencies for every host pair, not only the workload's flows")(
      "max-memory", po::value(&max_memory),
      "refuse a scenario whose estimated memory is beyond SIZE (default: this machine's memory)");
  std::string scenario;
  const po::variables_map vm = parse_options(argc, argv, opts, "scenario", scenario);
  if (vm.count("help") || scenario.empty()) {
    std::cout << opts << "\n";
    return vm.count("help") ? kOk : kBadInput;
  }
  scen::LoadOptions lo;
  lo.sets = sets;
  lo.max_memory_bytes = max_memory_option(max_memory);
  const scen::Scenario s = scen::load_scenario_file(scenario, lo);
  // Before the network is built: a scenario beyond the memory limit is refused here as a run
  // would refuse it.
  const scen::MemoryEstimate memory = scen::estimate_memory(s);
  scen::check_memory_estimate(memory, lo.max_memory_bytes);
  sim::Simulator sim(s.seed);
  const auto net = scen::build_network(s, sim);  // the same checks a run makes
  const topo::TopologySummary t = topo::summarize(s.fabric, net->routes);
  std::printf("scenario %s: valid\n", s.name.c_str());
  std::printf("topology  %d hosts, %d switches, %d links, capacity %s\n", t.hosts, t.switches,
              t.links, (topo::format_rate(t.total_capacity_bps) + "b/s").c_str());
  std::printf(
      "          bisection %sb/s (ratio %.3f of half the host injection), diameter %d hops\n",
      topo::format_rate(t.bisection_bps).c_str(), t.bisection_ratio, t.max_hops);
  std::printf(
      "          equal-cost paths between hosts on different switches: min %d, mean %.2f, max %d "
      "(%d pairs sampled)\n",
      t.min_paths, t.mean_paths, t.max_paths, t.path_pairs_sampled);
  std::printf("memory    estimate %s, limit %s\n", memory.describe().c_str(),
              scen::memory_limit_text(lo.max_memory_bytes).c_str());
  if (memory.samples_per_ms > 0 && memory.samples == 0) {
    std::printf("          samples %s per simulated ms (bounded while it runs)\n",
                scen::memory_text(memory.samples_per_ms).c_str());
  }

  if (s.pfc.enabled) {
    // Headroom per lossless ingress, by link rate and cable (what a switch engineer configures).
    std::map<std::pair<int64_t, int64_t>, std::pair<int64_t, int>>
        by_link;  // (rate, ps) -> (bytes, n)
    for (size_t l = 0; l < s.fabric.topo.links.size(); ++l) {
      const auto& link = s.fabric.topo.links[l];
      for (int end : {link.a, link.b}) {
        if (s.fabric.host_index[end] >= 0) continue;
        auto& e = by_link[{link.rate_bps, link.latency_ps}];
        e.first = std::max(e.first, scen::pfc_headroom(s, end, static_cast<int>(l)));
        ++e.second;
      }
    }
    std::string prios;
    for (int p = 0; p < 8; ++p) {
      if ((s.pfc.lossless_priorities >> p) & 1u)
        prios += (prios.empty() ? "" : ",") + std::to_string(p);
    }
    if (s.switch_defaults.buffer.threshold_mode == models::ThresholdMode::Dynamic) {
      const models::Alpha a = s.switch_defaults.buffer.alpha;
      std::printf(
          "pfc       lossless priorities %s, xoff at alpha %lld/%lld x free shared pool, xon "
          "%lld B below it\n",
          prios.c_str(), static_cast<long long>(a.num), static_cast<long long>(a.den),
          static_cast<long long>(s.pfc.xon_offset_bytes));
    } else {
      std::printf("pfc       lossless priorities %s, xoff %lld B, xon at %lld B\n", prios.c_str(),
                  static_cast<long long>(s.pfc.xoff_bytes),
                  static_cast<long long>(s.pfc.xoff_bytes - s.pfc.xon_offset_bytes));
    }
    for (const auto& [key, v] : by_link) {
      std::printf(
          "          headroom %lld B per (ingress, priority) on %d switch port(s) at %s, cable "
          "%s%s\n",
          static_cast<long long>(v.first), v.second, sim::format_rate(key.first).c_str(),
          sim::format_time(sim::Time(key.second)).c_str(),
          s.pfc.headroom_bytes > 0 ? " (set)" : " (formula)");
    }
  }
  std::vector<std::string> problems;
  if (s.pfc.enabled && s.nic.pfc_xoff_bytes > 0) {
    // NIC-sent PFC: the receive buffer a host needs so that its pauses never overflow it.
    int64_t need = 0;
    for (uint32_t h = 0; h < s.fabric.host_node.size(); ++h) {
      need = std::max(need, s.nic.pfc_xoff_bytes + scen::nic_pfc_headroom(s, h));
    }
    std::printf(
        "nic pfc   host drain %s, xoff %lld B, receive buffer needed %lld B (xoff + "
        "headroom), configured %s\n",
        sim::format_rate(s.nic.rx_drain_rate_bps).c_str(),
        static_cast<long long>(s.nic.pfc_xoff_bytes), static_cast<long long>(need),
        s.nic.rx_buffer_bytes > 0 ? sim::format_bytes(s.nic.rx_buffer_bytes).c_str() : "unbounded");
    if (s.nic.rx_buffer_bytes > 0 && s.nic.rx_buffer_bytes < need) {
      problems.push_back("fabric.nic.rx_buffer " + sim::format_bytes(s.nic.rx_buffer_bytes) +
                         " is below pfc_xoff + headroom (" + std::to_string(need) +
                         " B): the NIC receive buffer may overflow (nic_rx_overflow drops)");
    }
  }
  size_t down = 0;
  for (bool up : s.link_up) down += up ? 0 : 1;
  if (down > 0)
    problems.push_back(std::to_string(down) + " link(s) down; routes recomputed around them");
  if (t.unreachable_pairs > 0) {
    problems.push_back(std::to_string(t.unreachable_pairs) + " sampled host pair(s) have no path");
  }
  // Routes of the workload: hop counts, and explicit routes longer than the shortest path
  // (a detour or a valley route, the stuff of routing loops and buffer dependency cycles).
  std::set<std::pair<int, int>> pairs;
  size_t explicit_routes = 0, detours = 0;
  int max_hops = 0;
  const size_t hosts = s.fabric.host_node.size();
  double data_packets = 0, packet_hops = 0;  // the work the flows make, on shortest routes
  for (const auto& f : s.flows) {
    pairs.insert({f.src_host, f.dst_host});
    const int shortest =
        net->routes
            .distance[static_cast<size_t>(s.fabric.host_node[f.src_host]) * hosts + f.dst_host];
    max_hops = std::max(max_hops, shortest);
    const auto packets = static_cast<double>((f.bytes + s.nic.mtu - 1) / s.nic.mtu);
    data_packets += packets;
    packet_hops += std::max(shortest, 0) *
                   (packets + std::ceil(packets / static_cast<double>(s.nic.ack_every)));
    if (!f.route.empty()) {
      ++explicit_routes;
      if (static_cast<int>(f.route.size()) + 1 > shortest) ++detours;
    }
  }
  std::printf(
      "workload  %zu flows between %zu host pairs, longest shortest route %d hops, %zu explicit "
      "routes\n",
      s.flows.size(), pairs.size(), max_hops, explicit_routes);
  if (!s.flows.empty()) {
    // Without drops, retransmissions or detours; every packet-hop is about two events (it
    // leaves a port, it arrives at the next node).
    std::printf("          %.4g data packets, at least %.4g packet-hops with their ACKs\n",
                data_packets, packet_hops);
  }
  if (detours > 0) {
    problems.push_back(std::to_string(detours) +
                       " explicit route(s) longer than the shortest path");
  }
  check_buffer_dependencies(s, net->routes, vm.count("all-pairs") > 0, problems);
  // Again for the routes after each scheduled link event: first the mix that forwards during
  // convergence (the link's ends on the new tables, the rest on the old), then the new ones.
  if (s.pfc.enabled) {
    topo::RoutingTables before = net->routes;
    for (size_t i = 0; i < s.link_events.size(); ++i) {
      const auto& e = s.link_events[i];
      topo::RoutingTables after = scen::routes_for(s, scen::link_state_after(s, i + 1));
      if (s.convergence_delay.ps > 0) {
        std::vector<bool> ends(s.fabric.topo.nodes.size(), false);
        for (const int l : e.links) {
          ends[s.fabric.topo.links[l].a] = ends[s.fabric.topo.links[l].b] = true;
        }
        check_buffer_dependencies(s, topo::mix_routes(before, after, ends),
                                  vm.count("all-pairs") > 0, problems,
                                  "after " + e.label + ", during convergence");
      }
      check_buffer_dependencies(
          s, after, vm.count("all-pairs") > 0, problems,
          "after " + e.label + (s.convergence_delay.ps > 0 ? ", converged" : ""));
      before = std::move(after);
    }
  }
  for (const auto& l : s.fabric.topo.links) {
    if (l.loss_rate > 0) {
      problems.push_back("random loss configured on links (loss experiment)");
      break;
    }
  }
  if (problems.empty()) {
    std::printf("no problems found\n");
    return kOk;
  }
  std::printf("warnings:\n");
  for (const auto& p : problems) std::printf("  - %s\n", p.c_str());
  return vm.count("strict") ? kCheckFailed : kOk;
}

}  // namespace cli
