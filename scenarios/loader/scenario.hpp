// A scenario, parsed and validated: everything a run needs, refused before any simulation if
// anything is wrong (InputError with the JSON path).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "models/collectives/collective_spec.hpp"
#include "models/collectives/training_spec.hpp"
#include "models/nic_params.hpp"
#include "models/qos_params.hpp"
#include "models/roce/dcqcn_params.hpp"
#include "models/roce/ecn_marker.hpp"
#include "models/roce/pfc_params.hpp"
#include "models/switch.hpp"
#include "models/workloads/flow_spec.hpp"
#include "scenarios/loader/json_reader.hpp"
#include "topologies/topology.hpp"

namespace scen {

// A parameter set on one switch, or one port of it, or one priority of a port.
struct SwitchOverride {
  int node = -1;               // switch node; -1 = every switch
  int port = -1;               // -1 = every port
  int priority = -1;           // -1 = every priority
  Json set;                    // the parameters, as written
  bool has_scheduler = false;  // "scheduler" in set: the egress class schedule of these ports
  bool has_ecn = false;        // "ecn" in set: RED parameters of these (port, priority) queues
  int64_t headroom_bytes = 0;  // "headroom" in set: PFC headroom of these ingress buffers
  std::string path;            // JSON path, for errors found while applying
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

struct Scenario {
  std::string name;
  std::string source_file;  // the scenario file ("" for inline JSON)
  uint64_t seed = 1;
  topo::Fabric fabric;
  std::vector<bool> link_up;  // [topology link]; link failures set false
  models::SwitchParams switch_defaults;
  models::NicParams nic;
  models::PfcParams pfc;
  models::EcnParams ecn;
  models::DcqcnParams dcqcn;
  models::QosParams qos;
  std::vector<SwitchOverride> overrides;
  std::vector<models::FlowSpec> flows;
  std::vector<models::CollectiveSpec> collectives;  // workload.collective
  std::vector<models::TrainingSpec> training;       // workload.training
  sim::Time stop_time = sim::Time::max();
  bool stop_when_done = true;
  bool stop_on_deadlock = true;  // stop.on_deadlock: "stop" | "continue"
  TimeseriesSpec timeseries;
  bool has_timeseries = false;
  Json effective;  // the effective configuration, echoed into summary.json
};

struct LoadOptions {
  std::vector<std::string> sets;  // "path.to.key=value" overrides, applied in order
  bool has_seed = false;
  uint64_t seed = 0;
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

// Every model parameter with unit, default and meaning (for --list-params).
std::string list_parameters();

}  // namespace scen
