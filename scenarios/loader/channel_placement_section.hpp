// A collective's channel placement on GPU servers (models/collectives/channel_placement.hpp):
// `channel_placement` ("nccl", the default: rings over every rail as NCCL's topology search
// places them; "rank-order": one ring in rank order, each rank's own NIC) and `pxn`; each
// server's NICs by rail with the GPU next to each, from the topology's GPU servers; and
// `tuning` ("nccl", the default on GPU ranks: `auto` picks as NCCL's tuning model,
// models/collectives/nccl_tuning.hpp; "thresholds": the size thresholds of plain hosts).
#pragma once

#include "models/collectives/collective_spec.hpp"
#include "scenarios/loader/json_reader.hpp"
#include "topologies/topology.hpp"

namespace scen {

// After the ranks and channels of collective `r` are read into `s`: reads its placement keys
// and sets s.server_rails, s.ring_layouts and s.pxn. Placement keys on plain hosts are an
// InputError (they place channels on GPU servers' NICs).
void read_channel_placement(JsonReader& r, const topo::Fabric& f, models::CollectiveSpec& s);

}  // namespace scen
