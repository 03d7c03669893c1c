// Scenario replay on real hosts: under mpirun each rank plays one host of a scenario (rank i =
// host i). Ranks exchange connection data over MPI, start together after a barrier, send each
// of their flows at its start time and record completions: over tcp one connection per flow
// (replay_tcp.cpp), over verbs the flow's own RC queue pairs as the simulator models them
// (replay_verbs.cpp). Rank 0 gathers the completions and writes flows.csv in exactly the
// format of `rdmasim run`, so `rdmasim compare` reads both.
#pragma once

#include <string>
#include <vector>

#include "tools/probe/verbs_endpoint.hpp"

namespace probe {

struct ReplayOptions {
  std::string scenario;
  std::string out_dir;
  std::string bind = "127.0.0.1";  // listen address; its name or address is what peers dial
  std::vector<std::string> sets;   // --set overrides, as rdmasim run takes them
  std::string transport = "tcp";   // tcp | verbs
  VerbsOptions verbs;              // device, port, GID index, path MTU (0 = the scenario's), verb
  bool quiet = false;
};

// Runs the replay between MPI_Init and MPI_Finalize; returns the exit code (0, 1, 2).
int run_replay(int* argc, char*** argv, const ReplayOptions& o);

}  // namespace probe
