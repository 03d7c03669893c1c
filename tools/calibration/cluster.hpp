// The cluster a trace was measured on, described so rdmasim can simulate the traced experiment:
// nodes, GPUs and NICs per node, link speed, fabric kind, the topology (a generator, a file or
// inline, exactly as a scenario's "topology" section) and the pair of hosts perftest ran
// between. Example (scenarios/clusters/ and docs/calibration.md):
//   {"name": "cx6-hdr", "nodes": 2, "gpus_per_node": 8, "nics_per_node": 1,
//    "link_rate": "200Gbps", "fabric": "infiniband",
//    "topology": {"generator": "leaf-spine", "leaves": 1, "spines": 1, "hosts_per_leaf": 2,
//                 "host_rate": "200Gbps", "fabric_rate": "200Gbps",
//                 "host_latency": "10ns", "fabric_latency": "10ns"},
//    "pair": ["h0", "h1"]}
// GPU servers (nccl-tests traces): "gpu_servers": {"preset": "dgx-h100"} (plus any key of a
// scenario's topology.nodes but "count", e.g. "nvswitch_latency") makes every node a GPU
// server of that preset with gpus_per_node GPUs and nics_per_node NICs at link_rate (both
// default to the preset's); the topology must then be a generator that takes "nodes"
// (leaf-spine or rail). An optional "collective" object holds the keys of a scenario's
// collective entry that describe how NCCL ran ("algorithm", "protocol", "channels", "chunk",
// "slots"); the op, sizes and ranks come from the trace.
#pragma once

#include <cstdint>
#include <string>

#include "scenarios/loader/json_reader.hpp"
#include "tools/calibration/small_messages.hpp"
#include "topologies/gpu_nodes.hpp"

namespace calib {

struct ClusterSpec {
  std::string name;
  std::string file;  // where it was read from ("" when built in memory)
  std::string base_dir = ".";
  int64_t nodes = 0, gpus_per_node = 0, nics_per_node = 1;
  int64_t link_rate_bps = 0;
  bool infiniband = true;  // "infiniband" | "roce": header and framing bytes per packet
  scen::Json topology;     // a scenario's topology section
  std::string pair_src, pair_dst;
  scen::Json nic;  // fixed NIC settings (fabric.nic keys), e.g. {"mtu": "4KiB"}
  // GPU servers (empty gpu_servers: plain hosts).
  scen::Json gpu_servers;   // the "nodes" object put into the topology (with "count")
  topo::GpuNodeParams gpu;  // what it resolves to (preset and overrides)
  scen::Json collective;    // fixed collective settings (algorithm, protocol, ...)

  bool has_gpus() const { return !gpu_servers.is_null(); }
};

ClusterSpec read_cluster_file(const std::string& path);
ClusterSpec read_cluster_json(const scen::Json& j, const std::string& path,
                              const std::string& base_dir);

// The parameters calibration fits.
struct FabricParams {
  double host_latency_ns = 0;      // NIC + host latency, one way (split over tx and rx)
  double hop_latency_ns = 0;       // switch latency, per switch on the path
  double efficiency = 1;           // NIC send-engine rate / line rate
  double message_overhead_ns = 0;  // NIC send-engine time per message
  // Collectives on GPU servers: NCCL's software costs (costs nccl), each call's base latency
  // scaled by `launch_scale`, each step's by `step_scale` (CollectiveSpec); or, in overlays
  // written before the scales, no NCCL costs and one per-step overhead instead.
  bool nccl_costs = true;
  double launch_scale = 1;
  double step_scale = 1;
  double step_overhead_ns = 0;     // software time before each message, on top (0: none)
  double nvlink_rate_gbps = 0;     // per GPU, each way (Gb/s); 0: the preset's
  double nvls_rate_gbps = 0;       // the NVSwitch's reduction rate (NVLS); 0: the preset's
  double nvls_chunk_cost_ns = -1;  // its cost per chunk (NVLS); < 0: the preset's
  double nvlink_latency_ns = 0;    // GPU <-> NVSwitch link latency; 0: the preset's
  SmallMessageParams small;        // inline sends and message rate (small sizes only)
};

// Parameters of the network alone (no GPU servers): the four large-size parameters.
inline FabricParams network_params(double host_latency_ns, double hop_latency_ns, double efficiency,
                                   double message_overhead_ns) {
  FabricParams p;
  p.host_latency_ns = host_latency_ns;
  p.hop_latency_ns = hop_latency_ns;
  p.efficiency = efficiency;
  p.message_overhead_ns = message_overhead_ns;
  return p;
}

// The fabric section these parameters stand for: the overlay params.json holds
// ({"fabric": {"nic": {...}, "switch": {"latency": ...}}}); on GPU servers also
// {"topology": {"nodes": {"nvlink_rate", "nvlink_latency", "nvls_reduction_rate",
// "nvls_chunk_cost"}},
// "workload": {"collective": {"costs": "nccl", "launch_scale", "step_scale"}}}, which merge
// into a scenario of GPU servers with one collective object.
scen::Json params_overlay(const ClusterSpec& c, const FabricParams& p);
// Reads an overlay back (rdmasim validate --params).
FabricParams read_params_overlay(const std::string& path, const ClusterSpec& c);

// A scenario (JSON) of the cluster with these parameters, without a workload; `mtu` 0 keeps
// the cluster's (or the default).
scen::Json cluster_scenario(const ClusterSpec& c, const FabricParams& p, int64_t mtu);

}  // namespace calib
