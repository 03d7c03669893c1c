// tests/rank_ring.hpp's ring over MPI ranks: `mpirun -np N rdmasim_rank_ring PARTITIONS
// THREADS STOP_AFTER`, partition p on rank p % N. Rank 0 prints every rank's trace, by rank
// (tests/rank_run_test.cpp compares them with the ring in one process).
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "tests/rank_ring.hpp"
#include "tools/mpi/mpi_ranks.hpp"

int main(int argc, char** argv) {
  mpi::Session session(argc, argv);
  mpi::Ranks ranks;
  if (argc != 4) {
    if (ranks.rank() == 0)
      std::fprintf(stderr, "usage: rdmasim_rank_ring PARTITIONS THREADS STOP_AFTER\n");
    return 2;
  }
  const auto partitions = static_cast<uint32_t>(std::stoul(argv[1]));
  std::vector<uint32_t> rank_of(partitions);
  for (uint32_t p = 0; p < partitions; ++p) rank_of[p] = p % ranks.ranks();
  std::string text;
  int rc = 0;
  try {
    rank_ring::Ring ring(12, partitions, &ranks, rank_of);
    ring.sim.set_threads(static_cast<uint32_t>(std::stoul(argv[2])));
    ring.node[7]->stop_after = std::stoull(argv[3]);
    text = ring.trace(ring.sim.run());
  } catch (const std::exception& e) {
    text = std::string("error ") + e.what() + "\n";
    rc = 1;
  }
  const std::vector<sim::Bytes> all = ranks.gather_to_first(
      sim::Bytes(reinterpret_cast<const std::byte*>(text.data()),
                 reinterpret_cast<const std::byte*>(text.data() + text.size())));
  for (uint32_t r = 0; r < all.size(); ++r) {
    std::printf("rank %u\n%.*s", r, static_cast<int>(all[r].size()),
                reinterpret_cast<const char*>(all[r].data()));
  }
  return rc;
}
