#include "tools/calibration/cluster.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "scenarios/loader/gpu_nodes_section.hpp"
#include "scenarios/loader/input_error.hpp"
#include "scenarios/loader/json_reader.hpp"
#include "sim/units.hpp"

namespace calib {
namespace {

// Picoseconds, rounded, as a time string the loader reads exactly.
std::string ps_text(double ns) {
  return std::to_string(static_cast<int64_t>(std::llround(std::max(0.0, ns) * 1000))) + "ps";
}

scen::Json read_json_file(const std::string& path, const char* what) {
  std::ifstream in(path);
  if (!in) throw scen::InputError(path, "", std::string("a readable ") + what + " JSON file");
  in.close();
  return scen::read_json_file(path);
}

// "gpu_servers": the topology's "nodes" object (gpu_nodes_section.hpp) with the cluster's node
// count, GPUs and NICs per node and link rate.
void read_gpu_servers(scen::JsonReader& r, ClusterSpec& c) {
  scen::JsonReader g = r.at("gpu_servers");
  g.expect_object();
  scen::Json nodes = g.json();
  for (const char* key : {"count", "gpus", "nics", "nic_rate"}) {
    if (nodes.contains(key)) {
      throw scen::InputError(g.child_path(key), nodes[key].dump(),
                             "no such key here: the cluster's nodes, gpus_per_node, "
                             "nics_per_node and link_rate set it");
    }
  }
  nodes["count"] = c.nodes;
  if (c.gpus_per_node > 0) nodes["gpus"] = c.gpus_per_node;
  if (r.json().contains("nics_per_node")) nodes["nics"] = c.nics_per_node;
  nodes["nic_rate"] = sim::format_rate(c.link_rate_bps);
  if (!nodes.contains("preset")) nodes["preset"] = "dgx-h100";
  if (nodes["preset"] == "generic") {
    if (!nodes.contains("gpus")) nodes["gpus"] = 0;  // refused below, naming gpus_per_node
    if (!nodes.contains("nics")) nodes["nics"] = c.nics_per_node;
  }
  scen::JsonReader n(nodes, g.path());
  if (nodes.contains("gpus") && nodes["gpus"] == 0) {
    throw scen::InputError(r.child_path("gpus_per_node"), "0",
                           "GPUs per server (the generic preset has none of its own)");
  }
  c.gpu = scen::read_gpu_nodes(n).params;
  c.gpus_per_node = c.gpu.gpus;
  c.nics_per_node = c.gpu.nics;
  c.gpu_servers = nodes;
}

// Megabits per second, rounded, as a rate string (a fitted NVLink rate).
std::string rate_text(double gbps) {
  return std::to_string(static_cast<int64_t>(std::llround(std::max(0.001, gbps) * 1000))) + "Mbps";
}

}  // namespace

ClusterSpec read_cluster_file(const std::string& path) {
  const scen::Json j = read_json_file(path, "cluster description");
  return read_cluster_json(j, path, std::filesystem::path(path).parent_path().string());
}

ClusterSpec read_cluster_json(const scen::Json& j, const std::string& path,
                              const std::string& base_dir) {
  scen::JsonReader r(j, path);
  r.expect_object();
  ClusterSpec c;
  c.file = path;
  c.base_dir = base_dir.empty() ? "." : base_dir;
  c.name = r.string("name", "cluster");
  c.nodes = r.integer("nodes", 1, 1'000'000);
  c.gpus_per_node = r.integer("gpus_per_node", 0, 0, 64);
  c.nics_per_node = r.integer("nics_per_node", 1, 1, 64);
  c.link_rate_bps = r.rate_bps("link_rate");
  c.infiniband = r.choice("fabric", {"infiniband", "roce"}, "infiniband") == "infiniband";
  if (!r.has("topology")) {
    throw scen::InputError(r.child_path("topology"), "", "the topology (as in a scenario)");
  }
  c.topology = r.at("topology").json();
  if (r.has("pair")) {
    const scen::Json& p = r.at("pair").json();
    if (!p.is_array() || p.size() != 2 || !p[0].is_string() || !p[1].is_string() || p[0] == p[1]) {
      throw scen::InputError(r.child_path("pair"), p.dump(), "two different host names");
    }
    c.pair_src = p[0].get<std::string>();
    c.pair_dst = p[1].get<std::string>();
  }
  if (r.has("nic")) c.nic = r.at("nic").json();
  if (r.has("gpu_servers")) read_gpu_servers(r, c);
  if (r.has("collective")) {
    scen::JsonReader k = r.at("collective");
    k.expect_object();
    // How NCCL ran; the loader checks the values (with the algorithms it knows).
    for (const auto& [key, v] : k.json().items()) {
      static const std::set<std::string> allowed = {"algorithm", "protocol", "channels",
                                                    "chunk",     "slots",    "qps",
                                                    "tree_max",  "ll_max",   "ll128_max"};
      if (!allowed.count(key)) {
        throw scen::InputError(k.child_path(key), v.dump(),
                               "a key of how NCCL ran (algorithm, protocol, channels, chunk, "
                               "slots, qps, tree_max, ll_max, ll128_max); op, sizes and ranks "
                               "come from the trace");
      }
    }
    c.collective = k.json();
  }
  r.finish();
  return c;
}

scen::Json params_overlay(const ClusterSpec& c, const FabricParams& p) {
  scen::Json nic;
  // The one-way host latency is split evenly over the send and the receive side: a
  // ping-pong sees only the sum, and so does every one-way transfer.
  nic["tx_latency"] = ps_text(p.host_latency_ns / 2);
  nic["rx_latency"] = ps_text(p.host_latency_ns / 2);
  // A fraction of the line rate, so that the fit carries over to NICs of another speed.
  nic["send_efficiency"] = std::min(1.0, std::round(p.efficiency * 1e6) / 1e6);
  nic["message_overhead"] = ps_text(p.message_overhead_ns);
  add_small_message_keys(nic, p.small);
  scen::Json out;
  out["fabric"]["nic"] = nic;
  out["fabric"]["switch"]["latency"] = ps_text(p.hop_latency_ns);
  if (c.has_gpus()) {
    scen::Json& nodes = out["topology"]["nodes"];
    nodes["nvlink_rate"] = rate_text(p.nvlink_rate_gbps);
    nodes["nvlink_latency"] = ps_text(p.nvlink_latency_ns);
    if (p.nvls_rate_gbps > 0 && c.gpu.nvls_reduction_rate_bps > 0) {
      nodes["nvls_reduction_rate"] = rate_text(p.nvls_rate_gbps);
      if (p.nvls_chunk_cost_ns >= 0) nodes["nvls_chunk_cost"] = ps_text(p.nvls_chunk_cost_ns);
    }
    scen::Json& coll = out["workload"]["collective"];
    coll["costs"] = p.nccl_costs ? "nccl" : "none";
    if (p.nccl_costs) {
      // NCCL's costs on this machine: its tuning model's latencies, scaled.
      coll["launch_scale"] = std::round(p.launch_scale * 1e4) / 1e4;
      coll["step_scale"] = std::round(p.step_scale * 1e4) / 1e4;
    }
    if (!p.nccl_costs || p.step_overhead_ns > 0) {
      for (const char* key : {"step_latency_simple", "step_latency_ll128", "step_latency_ll"}) {
        coll[key] = ps_text(p.step_overhead_ns);
      }
    }
  }
  return out;
}

FabricParams read_params_overlay(const std::string& path, const ClusterSpec& c) {
  const scen::Json j = read_json_file(path, "parameters");
  FabricParams p;
  try {
    const scen::Json& nic = j.at("fabric").at("nic");
    p.host_latency_ns =
        static_cast<double>(sim::parse_time(nic.at("tx_latency").get<std::string>()).ps +
                            sim::parse_time(nic.at("rx_latency").get<std::string>()).ps) /
        1000.0;
    if (nic.contains("send_efficiency")) {
      p.efficiency = nic.at("send_efficiency").get<double>();
    } else {  // written before send_efficiency: an absolute rate at the cluster's link rate
      const std::string rate = nic.at("max_send_rate").get<std::string>();
      p.efficiency = rate == "0" ? 1.0
                                 : static_cast<double>(sim::parse_rate_bps(rate)) /
                                       static_cast<double>(c.link_rate_bps);
    }
    p.message_overhead_ns =
        static_cast<double>(sim::parse_time(nic.at("message_overhead").get<std::string>()).ps) /
        1000.0;
    p.small = read_small_message_keys(nic);
    p.hop_latency_ns =
        static_cast<double>(
            sim::parse_time(j.at("fabric").at("switch").at("latency").get<std::string>()).ps) /
        1000.0;
    if (c.has_gpus()) {
      const scen::Json& nodes = j.at("topology").at("nodes");
      p.nvlink_rate_gbps =
          static_cast<double>(sim::parse_rate_bps(nodes.at("nvlink_rate").get<std::string>())) /
          1e9;
      p.nvlink_latency_ns =
          static_cast<double>(sim::parse_time(nodes.at("nvlink_latency").get<std::string>()).ps) /
          1000.0;
      if (nodes.contains("nvls_reduction_rate")) {
        p.nvls_rate_gbps = static_cast<double>(sim::parse_rate_bps(
                               nodes.at("nvls_reduction_rate").get<std::string>())) /
                           1e9;
      }
      if (nodes.contains("nvls_chunk_cost")) {
        p.nvls_chunk_cost_ns =
            static_cast<double>(
                sim::parse_time(nodes.at("nvls_chunk_cost").get<std::string>()).ps) /
            1000.0;
      }
      const scen::Json& coll = j.at("workload").at("collective");
      // Overlays written before the scales: "costs": "none" and one per-step overhead.
      p.nccl_costs = coll.value("costs", std::string("none")) == "nccl";
      if (p.nccl_costs) {
        p.launch_scale = coll.at("launch_scale").get<double>();
        p.step_scale = coll.at("step_scale").get<double>();
      }
      if (coll.contains("step_latency_simple")) {
        p.step_overhead_ns =
            static_cast<double>(
                sim::parse_time(coll.at("step_latency_simple").get<std::string>()).ps) /
            1000.0;
      }
    }
  } catch (const std::exception& e) {
    throw scen::InputError(path, e.what(),
                           "a params.json written by rdmasim calibrate (fabric.nic.tx_latency, "
                           "rx_latency, send_efficiency (or max_send_rate), message_overhead; "
                           "fabric.switch.latency; "
                           "optionally inline_threshold, inline_saving, max_message_rate; on GPU "
                           "servers topology.nodes.nvlink_rate, nvlink_latency and "
                           "workload.collective.costs, launch_scale and step_scale)");
  }
  return p;
}

scen::Json cluster_scenario(const ClusterSpec& c, const FabricParams& p, int64_t mtu) {
  scen::Json s;
  s["name"] = "calibrate-" + c.name;
  s["topology"] = c.topology;
  scen::Json overlay = params_overlay(c, p);
  if (c.has_gpus()) {
    if (!c.topology.is_object() || c.topology.contains("nodes")) {
      throw scen::InputError(c.file + ": topology", c.topology.dump(),
                             "a generator without \"nodes\" (leaf-spine or rail): "
                             "gpu_servers makes its nodes GPU servers");
    }
    s["topology"]["nodes"] = c.gpu_servers;
    if (p.nvlink_rate_gbps > 0)
      s["topology"]["nodes"]["nvlink_rate"] = overlay["topology"]["nodes"]["nvlink_rate"];
    if (p.nvlink_latency_ns > 0)
      s["topology"]["nodes"]["nvlink_latency"] = overlay["topology"]["nodes"]["nvlink_latency"];
    for (const char* key : {"nvls_reduction_rate", "nvls_chunk_cost"}) {
      if (overlay["topology"]["nodes"].contains(key)) {
        s["topology"]["nodes"][key] = overlay["topology"]["nodes"][key];
      }
    }
  }
  scen::Json fabric = overlay["fabric"];
  // InfiniBand: LRH 8 + BTH 12 + ICRC 4 + VCRC 2 = 26 header bytes, no Ethernet framing (IBA
  // vol. 1, ch. 7); RoCEv2 keeps the NIC defaults (62 + 20, nic_params.hpp).
  if (c.infiniband) {
    fabric["nic"]["header_bytes"] = 26;
    fabric["nic"]["framing_bytes"] = 0;
  }
  // Go-back-N never fires in an idle fabric; a long timeout keeps it that way for long streams.
  fabric["nic"]["rto"] = "1s";
  if (c.nic.is_object()) {
    for (const auto& [k, v] : c.nic.items()) fabric["nic"][k] = v;
  }
  if (mtu > 0) fabric["nic"]["mtu"] = mtu;
  fabric["switch"]["forwarding"] = "cut-through";
  s["fabric"] = fabric;
  // A placeholder the loader requires; the experiment replaces the flows with its messages.
  s["workload"]["permutation"] = {{"hosts", "all"}, {"size", "1B"}};
  s["stop"]["until"] = "workload-done";
  return s;
}

}  // namespace calib
