// What a split run (`rdmasim run --partitions N`, `--threads N`) cannot run yet: parts of
// the model that act on several partitions' nodes at once within a window (ARCHITECTURE.md,
// "Partitions"). A count above 1 is then refused with the reason, and `--threads auto` runs
// the scenario on one thread.
#pragma once

#include <string>

#include "scenarios/loader/scenario.hpp"

namespace scen {

// "" when a split run can run `s`; else what it cannot, "; " between the parts.
std::string split_blockers(const Scenario& s);

// "" when a run over several processes (MPI ranks: RunOptions::ranks) can run `s`; else what
// it cannot. Such a run ships only link crossings between processes, and what reads or acts on
// the whole fabric during the run without agreements of its own (a collective's shared
// counts) would read only its own process's partitions: flows, for now.
std::string rank_blockers(const Scenario& s);

}  // namespace scen
