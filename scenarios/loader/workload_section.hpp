// The "workload" section: explicit flows and generated ones (incast, permutation, all-to-all,
// Poisson arrivals from a flow-size CDF), with start-time jitter.
#pragma once

#include <string>
#include <vector>

#include "models/nic_params.hpp"
#include "models/qos_params.hpp"
#include "models/workloads/flow_spec.hpp"
#include "scenarios/loader/json_reader.hpp"
#include "topologies/topology.hpp"

namespace scen {

std::vector<models::FlowSpec> read_workload_section(
    JsonReader& r, const topo::Fabric& f, const models::NicParams& nic,
    const models::QosParams& qos, uint64_t seed, const std::string& base_dir,
    bool allow_no_flows = false, int64_t max_memory_bytes = 0, bool tcp_allowed = true);

}  // namespace scen
