#include "tools/calibration/trace_experiments.hpp"

#include <algorithm>
#include <stdexcept>

#include "scenarios/builder/build_network.hpp"
#include "scenarios/loader/input_error.hpp"
#include "scenarios/loader/scenario.hpp"
#include "scenarios/run/run_scenario.hpp"
#include "sim/units.hpp"
#include "tools/calibration/collective_experiments.hpp"

namespace calib {
namespace {

int host_number(const scen::Scenario& s, const std::string& name, const std::string& what) {
  const int node = s.fabric.node_by_name(name);
  for (size_t h = 0; h < s.fabric.host_node.size(); ++h) {
    if (s.fabric.host_node[h] == node) return static_cast<int>(h);
  }
  throw scen::InputError(what, name, "a host of the cluster's topology");
}

// Simulated time that certainly holds one message of `bytes` and its acknowledgement on an
// idle path, for the bounds of the fitted parameters (efficiency >= 0.1, latencies < 100 us).
sim::Time spacing(int64_t bytes, int64_t messages, int64_t rate_bps) {
  const int64_t per_message_ps = (bytes + 4096) * 8 * 10 * 1000 / (rate_bps / 1'000'000'000 + 1);
  return sim::Time(messages * (per_message_ps + 200'000'000) + 1'000'000'000);
}

}  // namespace

Experiment experiment_from_trace(const traces::Trace& t, const ClusterSpec& c,
                                 const std::string& src, const std::string& dst) {
  if (t.kind == traces::TraceKind::NcclTests) return experiment_from_nccl(t.nccl, c, false);
  Experiment e;
  e.file = t.perftest.file;
  e.latency = t.perftest.info.latency;
  e.mtu = t.perftest.info.mtu;
  e.src = src.empty() ? c.pair_src : src;
  e.dst = dst.empty() ? c.pair_dst : dst;
  if (e.latency) {
    for (const auto& r : t.perftest.lat) {
      e.bytes.push_back(r.bytes);
      e.iterations.push_back(r.iterations);
      e.measured.push_back(r.t_typical_us);  // the choice: perftest's typical latency
    }
  } else {
    for (const auto& r : t.perftest.bw) {
      e.bytes.push_back(r.bytes);
      e.iterations.push_back(r.iterations);
      e.measured.push_back(r.average_bytes_per_s);
    }
  }
  return e;
}

int64_t stream_messages(int64_t bytes, int64_t iterations) {
  constexpr int64_t k64MiB = 64LL << 20;
  const int64_t for_volume = (k64MiB + bytes - 1) / bytes;
  return std::max<int64_t>(16, std::min(std::max<int64_t>(16, for_volume), iterations));
}

std::vector<double> simulate(const ClusterSpec& c, const FabricParams& p, Experiment& e,
                             const std::vector<bool>& use) {
  if (e.collective) return simulate_collective(c, p, e, use, &e.ran);
  scen::Scenario s =
      scen::load_scenario_json(cluster_scenario(c, p, e.mtu), c.base_dir, {}, c.file);
  s.flows.clear();
  if (e.src.empty() || e.dst.empty()) {
    const size_t hosts = s.fabric.host_node.size();
    if (hosts < 2) throw scen::InputError(c.file + ": topology", "", "two hosts or more");
    e.src = s.fabric.topo.nodes[s.fabric.host_node.front()].name;
    e.dst = s.fabric.topo.nodes[s.fabric.host_node.back()].name;
  }
  const int src = host_number(s, e.src, e.file + ": source host");
  const int dst = host_number(s, e.dst, e.file + ": destination host");
  // The description must agree with its topology: one host per NIC (GPU servers' NVLink
  // endpoints aside), the NIC at link_rate (the efficiency is relative to it).
  const auto hosts = static_cast<int64_t>(s.fabric.host_node.size()) - s.fabric.topo.gpus.gpus();
  if (hosts != c.nodes * c.nics_per_node) {
    throw scen::InputError(
        c.file + ": nodes", std::to_string(c.nodes),
        "nodes x nics_per_node = the topology's " + std::to_string(hosts) + " hosts");
  }
  const int src_node = s.fabric.host_node[static_cast<size_t>(src)];
  for (const auto& l : s.fabric.topo.links) {
    if ((l.a == src_node || l.b == src_node) && l.rate_bps != c.link_rate_bps) {
      throw scen::InputError(c.file + ": link_rate", sim::format_rate(c.link_rate_bps),
                             "the rate of " + e.src + "'s link in the topology (" +
                                 sim::format_rate(l.rate_bps) + ")");
    }
  }
  const int64_t rate = c.link_rate_bps;
  // Flows: per selected size, its messages in a window of their own.
  struct Window {
    size_t size_index;
    uint32_t first_flow, flows;
    sim::Time start;
  };
  std::vector<Window> windows;
  sim::Time t(0);
  for (size_t i = 0; i < e.bytes.size(); ++i) {
    if (!use.empty() && !use[i]) continue;
    const int64_t n = e.latency ? kPingPongMessages : stream_messages(e.bytes[i], e.iterations[i]);
    Window w{i, static_cast<uint32_t>(s.flows.size()), static_cast<uint32_t>(n), t};
    for (int64_t k = 0; k < n; ++k) {
      models::FlowSpec f;
      // Ping-pong: alternate directions, each message alone; stream: all posted at once.
      const bool back = e.latency && (k % 2 == 1);
      f.src_host = back ? dst : src;
      f.dst_host = back ? src : dst;
      f.bytes = e.bytes[i];
      f.start = e.latency ? t + sim::Time(k * spacing(e.bytes[i], 1, rate).ps) : t;
      f.priority = s.nic.data_priority;
      f.dscp = s.nic.data_dscp;
      f.tag = e.latency ? "ping-pong" : "stream";
      s.flows.push_back(f);
    }
    windows.push_back(w);
    t = t + spacing(e.bytes[i], n, rate);
  }
  sim::Simulator sim(s.seed);
  auto net = scen::build_network(s, sim);
  net->transport->schedule_starts();
  sim.run(sim::Time::max());
  const auto& tr = *net->transport;
  if (tr.flows_done() != tr.flow_count()) {
    throw std::logic_error(e.file + ": the simulated experiment did not complete");
  }
  // Switches on the path: links traversed minus one (shortest paths: every ECMP choice agrees).
  e.switches = static_cast<int>(scen::trace_path(s, *net, static_cast<uint32_t>(src),
                                                 static_cast<uint32_t>(dst), 0, 0)
                                    .size()) -
               1;
  std::vector<double> out;
  for (const Window& w : windows) {
    if (e.latency) {
      // The typical (median) one-way latency of the ping-pong's messages.
      std::vector<int64_t> lat;
      for (uint32_t k = 0; k < w.flows; ++k) {
        const models::FlowState& f = tr.flow(w.first_flow + k);
        lat.push_back((tr.qp(f.first_qp).delivered_at - f.spec.start).ps);
      }
      std::sort(lat.begin(), lat.end());
      out.push_back(static_cast<double>(lat[lat.size() / 2]) / 1e6);
    } else {
      sim::Time last(0);
      for (uint32_t k = 0; k < w.flows; ++k)
        last = std::max(last, tr.flow(w.first_flow + k).finish);
      const double seconds = static_cast<double>((last - w.start).ps) / 1e12;
      out.push_back(static_cast<double>(e.bytes[w.size_index]) * w.flows / seconds);
    }
  }
  return out;
}

}  // namespace calib
