// Algorithms "collnet_direct" and "collnet_chain" of an all-reduce
// (models/collectives/collnet_run.cpp): where they exist, refused elsewhere with the
// collective's path.
#pragma once

#include "models/collectives/collective_spec.hpp"
#include "scenarios/loader/json_reader.hpp"
#include "topologies/topology.hpp"

namespace scen {

// Algorithms collnet_direct and collnet_chain: refused with the algorithm's path unless the
// ranks are GPUs on two servers or more, as many on each and at most 8, with a rank next to
// every NIC (their heads); protocol simple only. The fabric (InfiniBand, its SHARP) is checked
// with the scenario (sharp_section.hpp). Fills s.collnet_servers.
void read_collnet(JsonReader& r, const topo::Fabric& f, models::CollectiveSpec& s);

}  // namespace scen
