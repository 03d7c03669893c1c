// The "topology" section of a scenario, and topology files: {"file": ...}, {"generator": ...},
// or inline {"nodes": [...], "links": [...]}.
#pragma once

#include <string>

#include "scenarios/loader/json_reader.hpp"
#include "topologies/topology.hpp"

namespace scen {

// Reads the section (relative files against base_dir) and returns the topology, unvalidated.
topo::Topology read_topology_section(JsonReader& r, const std::string& base_dir);
// Validates and assigns ports; topology errors become InputError under `path_prefix`.
topo::Fabric build_fabric_checked(topo::Topology t, const std::string& path_prefix);
// Topology file format (what `rdmasim topo gen -o` writes).
Json topology_to_json(const topo::Topology& t);

// Speed of light in fibre: about 5 ns per metre (docs/references.md "Fabric figures"), so 5 ps
// per millimetre.
constexpr int64_t kFibrePsPerMm = 5;

}  // namespace scen
