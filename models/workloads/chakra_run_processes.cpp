// Chakra traces over several processes (chakra_run.hpp; ARCHITECTURE.md, "Runs over
// processes"). Each process runs the nodes of its own ranks: their compute, their sends and
// receives (flows told to the other processes by the transport, this runner their owner by its
// registered number), their parts of their groups' collectives — asked for in issue order at
// the iteration's start, a boundary event every process runs, each rank joining where it is,
// as any collective's calls over processes. A rank's first nodes start with an event of its
// agent (ChakraRunner::on_event). Each process tells the others of its ranks that ended, with
// their figures; every process ends the workload once every rank has, and the processes agree
// on its end (the latest of the ranks' ends) as they do on flows'.
#include <stdexcept>
#include <string>

#include "models/workloads/chakra_run.hpp"
#include "sim/partition_lists.hpp"
#include "sim/result_archive.hpp"

namespace models {

namespace {

// A collective's row, both ways (ResultArchive packs values and vectors of them).
void archive_row(sim::ResultArchive& a, CollectiveResult& r) {
  a(r.collective, r.op, r.algorithm, r.protocol, r.ranks, r.size_bytes, r.count, r.time, r.start,
    r.end, r.messages, r.wire_bytes, r.nvlink_bytes, r.network_bytes, r.chunk_bytes,
    r.rank_data_sent, r.rank_data_received);
}

}  // namespace

void ChakraRunner::share_over_processes(sim::Simulator& sim, std::function<void()> on_rank_done) {
  over_processes_ = true;
  on_rank_done_ = std::move(on_rank_done);
  ended_told_.resize(sim.partitions());
  rows_told_.resize(sim.partitions());
  // The gated groups' rows end (shares_taken) before this runner counts its ranks' ends; an
  // in-network group's runner runs where its members are, its calls asked for by their events.
  for (auto& [key, runner] : runners_) {
    if (gated_[key.first]) {
      sim.add_rank_share(*runner);
    } else if (!runner->run_in_own_partition()) {
      throw std::logic_error("Chakra group " + std::to_string(key.first) +
                             " reduces in the network across partitions: it cannot run over "
                             "processes");
    }
  }
  sim.add_rank_share(*this);
}

void ChakraRunner::pack_share(sim::Bytes& out) {
  // The in-network rows ended here, then the ranks' ends (a rank ends after its rows).
  std::vector<uint32_t> rows;
  for (uint32_t p = 0; p < rows_told_.size(); ++p) {
    if (!ctx_.sim.is_local(p)) continue;
    rows.insert(rows.end(), rows_told_[p].begin(), rows_told_[p].end());
    rows_told_[p].clear();
  }
  sim::put_bytes(out, static_cast<uint64_t>(rows.size()));
  const std::vector<uint32_t> no_partitions;
  for (const uint32_t c : rows) {
    sim::put_bytes(out, c);
    sim::ResultArchive a(out, no_partitions, 0);
    archive_row(a, row_of_[c]);
  }
  sim::pack_partition_lists(ctx_.sim, ended_told_, out);
}

void ChakraRunner::take_share(sim::ByteReader& in, uint32_t rank) {
  const bool own = rank == ctx_.sim.ranks()->rank();
  const auto rows = in.get<uint64_t>();
  const std::vector<uint32_t> no_partitions;
  for (uint64_t i = 0; i < rows; ++i) {
    const auto c = in.get<uint32_t>();
    if (c >= row_of_.size()) {
      throw std::runtime_error("rank " + std::to_string(rank) + " told of Chakra collective " +
                               std::to_string(c) + " of " + std::to_string(row_of_.size()));
    }
    CollectiveResult row;
    sim::ResultArchive a(in, no_partitions, 0);
    archive_row(a, row);
    if (!own) row_of_[c] = std::move(row);
  }
  const auto count = in.get<uint64_t>();
  for (uint64_t i = 0; i < count; ++i) {
    const auto e = in.get<RankEnd>();
    if (e.rank >= results_.size()) {
      throw std::runtime_error("rank " + std::to_string(rank) + " told of Chakra rank " +
                               std::to_string(e.rank) + " of " + std::to_string(results_.size()));
    }
    ++ranks_told_done_;
    if (own) continue;
    ChakraRankResult& r = results_[e.rank];
    r.iteration = e.iteration;
    r.compute = e.compute;
    r.exposed = e.exposed;
    r.collectives = static_cast<uint32_t>(e.collectives);
    r.sends = static_cast<uint32_t>(e.sends);
    r.recvs = static_cast<uint32_t>(e.recvs);
  }
}

void ChakraRunner::shares_taken() {
  if (!done() && ranks_told_done_ == spec_.ranks.size()) finish();
}

bool ChakraRunner::share_pending() const {
  return sim::partition_lists_pending(ctx_.sim, ended_told_) ||
         sim::partition_lists_pending(ctx_.sim, rows_told_);
}

}  // namespace models
