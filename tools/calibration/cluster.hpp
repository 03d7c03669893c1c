// The cluster a trace was measured on, described so rdmasim can simulate the traced experiment:
// nodes, GPUs and NICs per node, link speed, fabric kind, the topology (a generator, a file or
// inline, exactly as a scenario's "topology" section) and the pair of hosts perftest ran
// between. Example (docs/clusters/ and README "Calibrating against your cluster"):
//   {"name": "cx6-hdr", "nodes": 2, "gpus_per_node": 8, "nics_per_node": 1,
//    "link_rate": "200Gbps", "fabric": "infiniband",
//    "topology": {"generator": "leaf-spine", "leaves": 1, "spines": 1, "hosts_per_leaf": 2,
//                 "host_rate": "200Gbps", "fabric_rate": "200Gbps",
//                 "host_latency": "10ns", "fabric_latency": "10ns"},
//    "pair": ["h0", "h1"]}
#pragma once

#include <cstdint>
#include <string>

#include "scenarios/loader/json_reader.hpp"
#include "tools/calibration/small_messages.hpp"

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
  SmallMessageParams small;        // inline sends and message rate (small sizes only)
};

// The fabric section these parameters stand for: the overlay params.json holds
// ({"fabric": {"nic": {...}, "switch": {"latency": ...}}}).
scen::Json params_overlay(const ClusterSpec& c, const FabricParams& p);
// Reads an overlay back (rdmasim validate --params).
FabricParams read_params_overlay(const std::string& path, const ClusterSpec& c);

// A scenario (JSON) of the cluster with these parameters, without a workload; `mtu` 0 keeps
// the cluster's (or the default).
scen::Json cluster_scenario(const ClusterSpec& c, const FabricParams& p, int64_t mtu);

}  // namespace calib
