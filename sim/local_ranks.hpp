// Ranks of a run over processes (sim/rank_exchange.hpp) that are threads of one process: each
// thread builds its own Simulator and fabric and runs it with its rank's exchange. The code
// path of a run over MPI ranks without MPI — what the tests of that path run under the
// sanitizers and what a library user can run without mpirun.
#pragma once

#include <cstdint>
#include <memory>

#include "sim/rank_exchange.hpp"

namespace sim {

class LocalRanks {
 public:
  explicit LocalRanks(uint32_t ranks);
  ~LocalRanks();
  LocalRanks(const LocalRanks&) = delete;
  LocalRanks& operator=(const LocalRanks&) = delete;
  // Rank r's exchange: used by one thread at a time, every rank's in the same order.
  RankExchange& rank(uint32_t r);
  // Rank r's thread is done with the run (it ended, or failed): it takes part in no later
  // collective. A rank that still calls one then fails, saying so, instead of waiting for ever
  // (as a process whose run went on past the others' would under MPI, where mpirun ends it).
  void leave(uint32_t r);

 private:
  struct Shared;
  class Endpoint;
  std::unique_ptr<Shared> shared_;
};

}  // namespace sim
