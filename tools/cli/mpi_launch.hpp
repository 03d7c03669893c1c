// `rdmasim run` launched as several processes — by mpirun (Open MPI) or by Slurm's srun with
// PMIx or PMI-2 — runs one scenario over them (scenarios/run/gather_results.hpp): this reads
// how the process was launched from its launcher's environment, before MPI is initialised
// (MPI_Init outside a launcher starts a singleton, which would run the whole scenario alone).
#pragma once

#include <cstdint>
#include <memory>

namespace sim {
class RankExchange;
}  // namespace sim

namespace cli {

struct Launch {
  uint32_t ranks = 1;  // processes the launcher started
  uint32_t rank = 0;   // this one's
};

// From OMPI_COMM_WORLD_SIZE/RANK (mpirun), PMIX_RANK with SLURM_NTASKS or PMI_SIZE/RANK (srun,
// MPICH's launchers); one process otherwise.
Launch launch_from_environment();

// The MPI ranks of a launch of several processes: MPI initialised (and finalised with the
// last reference); throws InputError when this rdmasim was built without Open MPI, or when MPI
// sees fewer processes than the launcher started (srun without --mpi=pmix).
class LaunchedRanks {
 public:
  LaunchedRanks(const Launch& launch, int& argc, char**& argv);
  ~LaunchedRanks();
  LaunchedRanks(const LaunchedRanks&) = delete;
  LaunchedRanks& operator=(const LaunchedRanks&) = delete;
  sim::RankExchange& exchange();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cli
