// A scenario, parsed and validated: everything a run needs, refused before any simulation if
// anything is wrong (InputError with the JSON path).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/cc/cc_params.hpp"
#include "models/collectives/collective_spec.hpp"
#include "models/ib/ib_params.hpp"
#include "models/nic_params.hpp"
#include "models/qos_params.hpp"
#include "models/roce/dcqcn_params.hpp"
#include "models/roce/ecn_marker.hpp"
#include "models/roce/pause_storm.hpp"
#include "models/roce/pfc_params.hpp"
#include "models/sharp/sharp_params.hpp"
#include "models/switch.hpp"
#include "models/tcp/tcp_params.hpp"
#include "models/training/training_spec.hpp"
#include "models/workloads/chakra_spec.hpp"
#include "models/workloads/flow_spec.hpp"
#include "scenarios/loader/json_reader.hpp"
#include "scenarios/loader/param_table.hpp"
#include "topologies/forwarding_tables.hpp"
#include "topologies/topology.hpp"

namespace scen {

// A parameter set on one switch, or one port of it, or one priority of a port: what its "set"
// names, read and checked when the scenario loads (the builder reads no JSON).
struct SwitchOverride {
  int node = -1;      // switch node; -1 = every switch
  int port = -1;      // -1 = every port
  int priority = -1;  // -1 = every priority
  // Switch-wide keys (latency, forwarding, buffer, ...): only without port and priority.
  ParamPatch<models::SwitchParams> switch_wide;
  // Per (port, priority) buffer keys: queue_limit, reserve, alpha.
  ParamPatch<models::SwitchParams> per_port;
  // "scheduler": the egress class weights it sets (0 = strict), per priority; none: unset.
  std::array<std::optional<uint32_t>, models::kPriorities> scheduler{};
  // "ecn": RED parameters of these (port, priority) queues; has_ecn also when it sets none of
  // them (its priorities' kmin < kmax is then checked as resolved, ecn_params_for).
  ParamPatch<models::EcnParams> ecn;
  bool has_ecn = false;
  int64_t headroom_bytes = 0;  // "headroom": PFC headroom of these ingress buffers (0 = unset)
  // "pfc_watchdog": the watchdog_* members it sets (watchdog_section.hpp); empty: unset.
  ParamPatch<models::PfcParams> watchdog;
  std::vector<uint8_t> sl_to_vl;  // "sl_to_vl" (InfiniBand): VL per SL; empty = unset
  std::string path;               // JSON path, for errors found while applying
};

struct TimeseriesSpec {
  struct PortRef {
    int node = -1;
    int port = 0;
    std::string label;  // as written: "leaf0:3" or "h5"
  };
  std::vector<PortRef> ports;
  std::vector<uint32_t> flows;    // flow ids: payload delivered and rate limit per interval
  sim::Time interval{1'000'000};  // 1 us
};

// Which fabric a scenario runs on ("fabric": "roce" | "infiniband" | a list of them).
enum class FabricKind : uint8_t { Roce, Infiniband };

struct Scenario {
  std::string name;
  std::string source_file;  // the scenario file ("" for inline JSON)
  uint64_t seed = 1;
  topo::Fabric fabric;
  std::vector<bool> link_up;  // [topology link]; link failures set false
  // "routing": "shortest-path" (ECMP over every shortest path, the default) or "up-down"
  // (ECMP over the shortest up*-down* paths only: topologies/updown_routing.hpp).
  bool updown_routing = false;
  // "routing": "minhop" | "ftree": linear forwarding tables as a subnet manager computes them
  // (topologies/forwarding_tables.hpp), one port per (switch, destination) over the min-hop
  // (minhop) or up*-down* (ftree) sets, instead of the per-flow hash.
  bool lft_routing = false;
  topo::LftAlgorithm lft_algorithm = topo::LftAlgorithm::MinHop;
  std::vector<models::PauseStormParams> pause_storms;  // "pause_storms": NICs that storm
  // "tagging": {"priorities": [3, 4]}: Tagger's re-tagging of packets that leave the up*/down*
  // path onto the next lossless priority of the list (empty = off).
  std::vector<int> tagging_priorities;
  // "link_events": links going down or up during the run. The switches at the link's ends
  // install the recomputed routes at once; every other switch after `convergence_delay`
  // (stale routes meanwhile).
  struct LinkEvent {
    sim::Time at;
    std::vector<int> links;  // topology links between the two named nodes
    bool up = false;
    std::string label;  // "L0-S0 down at 500us"
  };
  std::vector<LinkEvent> link_events;
  sim::Time convergence_delay{0};
  models::SwitchParams switch_defaults;
  models::NicParams nic;
  models::PfcParams pfc;
  models::EcnParams ecn;
  models::DcqcnParams dcqcn;
  models::CcParams cc;  // fabric.cc: HPCC, DCTCP, TIMELY (DCQCN: `dcqcn`)
  // fabric.transport "tcp" (or the fabric "tcp" of a list): messages that name no transport —
  // every collective's and training step's — run over kernel TCP with `tcp`'s parameters.
  bool tcp_transport = false;
  models::TcpParams tcp;  // fabric.tcp
  // GPU servers had GPUDirect RDMA on: kernel TCP stages their data through host memory.
  bool tcp_staged_gpus = false;
  // Whether any message runs over TCP (the fabric's transport or a flow's "transport").
  bool uses_tcp() const {
    if (tcp_transport) return true;
    for (const auto& f : flows) {
      if (f.transport == models::FlowTransport::Tcp) return true;
    }
    return false;
  }
  models::QosParams qos;
  FabricKind fabric_kind = FabricKind::Roce;
  std::vector<std::string> fabrics;  // as the file lists them ("fabric": [...]); else one
  models::IbParams ib;               // the "infiniband" section (fabric_kind Infiniband)
  models::SharpParams sharp;         // infiniband.sharp (algorithm "sharp")
  std::vector<SwitchOverride> overrides;
  std::vector<models::FlowSpec> flows;
  std::vector<models::CollectiveSpec> collectives;  // workload.collective
  std::vector<models::TrainingSpec> training;       // workload.training
  std::vector<models::ChakraSpec> chakra;           // workload.chakra
  sim::Time stop_time = sim::Time::max();
  bool stop_when_done = true;
  bool stop_on_deadlock = true;  // stop.on_deadlock: "stop" | "continue"
  TimeseriesSpec timeseries;
  bool has_timeseries = false;
  // outputs.fct_by_size: the upper edges of the flow-size buckets of fct_by_size.csv (empty:
  // not written).
  std::vector<int64_t> fct_size_edges;
  Json effective;  // the effective configuration, echoed into summary.json
};

struct LoadOptions {
  std::vector<std::string> sets;  // "path.to.key=value" overrides, applied in order
  bool has_seed = false;
  uint64_t seed = 0;
  // Of a file whose "fabric" lists several ("roce", "infiniband"): the one to load; "" = the
  // first listed.
  std::string fabric;
  // --max-memory (bytes; 0 = the machine's memory): a workload generator that would make more
  // flows than fit is refused before it makes them (memory_estimate.hpp).
  int64_t max_memory_bytes = 0;
  // A scenario without a workload (no "workload", or one that makes no flow) is accepted: the
  // library API posts the traffic (scenarios/api).
  bool allow_empty_workload = false;
};

// Loads a scenario file: includes, --set overrides, defaults, validation.
Scenario load_scenario_file(const std::string& file, const LoadOptions& options = {});
// Same, from JSON already in memory; relative paths resolve against `base_dir`.
Scenario load_scenario_json(Json root, const std::string& base_dir, const LoadOptions& options,
                            const std::string& source_file = "");

// Applies one "path.to.key=value" override to `root` (value parsed as JSON, else a string).
void apply_set(Json& root, const std::string& assignment);

// Resolves the per-switch parameters after overrides (switch-wide fields).
models::SwitchParams switch_params_for(const Scenario& s, int node);

// The ECN marking parameters of each priority of a switch port: fabric.ecn, then the
// overrides' "ecn" objects in order. Throws InputError (the path of the override that made it
// so) when a resolved setting has kmax <= kmin.
std::array<models::EcnParams, models::kPriorities> ecn_params_for(const Scenario& s, int node,
                                                                  int port);

}  // namespace scen
