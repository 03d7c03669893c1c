// Scenario replay on real hosts: under mpirun each rank plays one host of a scenario (rank i =
// host i). Ranks open a listening socket each and exchange their addresses over MPI, start
// together after a barrier, send each of their flows at its start time over its own TCP
// connection (a version-checked header naming the flow and its size, the payload, then the
// receiver's acknowledgement), and record completions. Rank 0 gathers them and writes
// flows.csv in exactly the format of `rdmasim run`, so `rdmasim compare` reads both.
#pragma once

#include <string>
#include <vector>

namespace probe {

struct ReplayOptions {
  std::string scenario;
  std::string out_dir;
  std::string bind = "127.0.0.1";  // listen address; its name or address is what peers dial
  std::vector<std::string> sets;   // --set overrides, as rdmasim run takes them
  bool quiet = false;
};

// Runs the replay between MPI_Init and MPI_Finalize; returns the exit code (0, 1, 2).
int run_replay(int* argc, char*** argv, const ReplayOptions& o);

}  // namespace probe
