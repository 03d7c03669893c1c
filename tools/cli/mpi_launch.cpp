#include "tools/cli/mpi_launch.hpp"

#include <cstdlib>
#include <string>

#include "scenarios/loader/input_error.hpp"
#include "sim/rank_exchange.hpp"
#ifdef RDMASIM_HAVE_MPI_RANKS
#include <optional>

#include "tools/mpi/mpi_ranks.hpp"
#endif

namespace cli {

namespace {

// A whole number from the environment, or -1.
long env_number(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return -1;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  return *end == '\0' && n >= 0 ? n : -1;
}

}  // namespace

Launch launch_from_environment() {
  // mpirun (Open MPI); srun --mpi=pmix (PMIx, with Slurm's task count); PMI-1/2 launchers
  // (srun --mpi=pmi2, MPICH's hydra).
  const std::pair<const char*, const char*> kinds[] = {
      {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"},
      {"SLURM_NTASKS", "PMIX_RANK"},
      {"PMI_SIZE", "PMI_RANK"},
  };
  for (const auto& [size, rank] : kinds) {
    const long n = env_number(size), r = env_number(rank);
    if (n >= 1 && r >= 0 && r < n) {
      return {static_cast<uint32_t>(n), static_cast<uint32_t>(r)};
    }
  }
  return {};
}

#ifdef RDMASIM_HAVE_MPI_RANKS

struct LaunchedRanks::Impl {
  std::optional<mpi::Session> session;
  std::optional<mpi::Ranks> ranks;
};

LaunchedRanks::LaunchedRanks(const Launch& launch, int& argc, char**& argv)
    : impl_(std::make_unique<Impl>()) {
  impl_->session.emplace(argc, argv);
  impl_->ranks.emplace();
  if (impl_->ranks->ranks() != launch.ranks) {
    throw scen::InputError("the launch", std::to_string(launch.ranks) + " processes",
                           "processes that MPI sees as one run (it sees " +
                               std::to_string(impl_->ranks->ranks()) +
                               "): under Slurm, srun --mpi=pmix");
  }
}

LaunchedRanks::~LaunchedRanks() = default;

sim::RankExchange& LaunchedRanks::exchange() {
  return *impl_->ranks;
}

#else

struct LaunchedRanks::Impl {};

LaunchedRanks::LaunchedRanks(const Launch& launch, int&, char**&) {
  throw scen::InputError("the launch", std::to_string(launch.ranks) + " processes",
                         "one process: this rdmasim was built without Open MPI "
                         "(libopenmpi-dev), so it cannot run a scenario over several");
}

LaunchedRanks::~LaunchedRanks() = default;

sim::RankExchange& LaunchedRanks::exchange() {
  throw std::logic_error("LaunchedRanks without MPI");
}

#endif

}  // namespace cli
