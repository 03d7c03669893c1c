// The processes of a run split over MPI ranks (sim/rank_exchange.hpp): the events crossing
// between them swapped point to point (one message each way between every pair), the agreements
// with MPI_Allreduce, over MPI_COMM_WORLD. Open MPI from Debian; the simulator itself knows nothing
// of MPI.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/rank_exchange.hpp"

namespace mpi {

// MPI_Init at construction (with the program's arguments), MPI_Finalize at destruction.
class Session {
 public:
  Session(int& argc, char**& argv);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
};

class Ranks final : public sim::RankExchange {
 public:
  Ranks();  // of MPI_COMM_WORLD; MPI must be initialised
  uint32_t rank() const override { return rank_; }
  uint32_t ranks() const override { return ranks_; }
  std::vector<sim::Bytes> exchange(std::vector<sim::Bytes> out) override;
  void min_all(std::span<int64_t> values) override;
  void sum_all(std::span<uint64_t> values) override;
  // Every rank's bytes, by rank, on rank 0 (the others get an empty list).
  std::vector<sim::Bytes> gather_to_first(const sim::Bytes& mine);

 private:
  uint32_t rank_ = 0;
  uint32_t ranks_ = 1;
  uint64_t exchanges_ = 0;  // exchange() calls so far (their parity tags the messages)
};

}  // namespace mpi
