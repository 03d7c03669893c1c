// Algorithm "nvls" of an all-reduce (models/collectives/in_network_run.cpp): where it exists —
// every rank a GPU of one server whose NVSwitch reduces (topology.nodes' nvls_reduction_rate,
// topologies/gpu_nodes.hpp) — and its parameters for the run; refused elsewhere, with the
// collective's path.
#pragma once

#include "models/collectives/collective_spec.hpp"
#include "scenarios/loader/json_reader.hpp"
#include "topologies/topology.hpp"

namespace scen {

// After the ranks, algorithm and tunables of collective `r` are read into `s`: sets
// s.nvls_available and s.nvls; an explicit "nvls" where it is not available (ranks on several
// servers, plain hosts, an NVSwitch without NVLS) or with a protocol other than Simple is an
// InputError.
void read_nvls(JsonReader& r, const topo::Fabric& f, models::CollectiveSpec& s);

}  // namespace scen
