#include "tools/mpi/mpi_ranks.hpp"

#include <mpi.h>

#include <limits>
#include <stdexcept>
#include <string>

namespace mpi {

Session::Session(int& argc, char**& argv) {
  MPI_Init(&argc, &argv);
}
Session::~Session() {
  MPI_Finalize();
}

Ranks::Ranks() {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  rank_ = static_cast<uint32_t>(rank);
  ranks_ = static_cast<uint32_t>(size);
}

namespace {

// MPI counts bytes in ints: a window's crossings for one rank must stay under 2 GiB.
int as_count(size_t bytes) {
  if (bytes > static_cast<size_t>(std::numeric_limits<int>::max())) {
    throw std::length_error("a window's events for one MPI rank take " + std::to_string(bytes) +
                            " bytes: more than MPI sends at once (2 GiB)");
  }
  return static_cast<int>(bytes);
}

}  // namespace

// The sizes first (every rank learns what each will send it), then the bytes.
std::vector<sim::Bytes> Ranks::exchange(std::vector<sim::Bytes> out) {
  if (out.size() != ranks_) throw std::invalid_argument("exchange: one buffer per rank");
  out[rank_].clear();
  std::vector<int> send_counts(ranks_), recv_counts(ranks_), send_at(ranks_), recv_at(ranks_);
  sim::Bytes send;
  for (uint32_t r = 0; r < ranks_; ++r) {
    send_at[r] = as_count(send.size());
    send_counts[r] = as_count(out[r].size());
    send.insert(send.end(), out[r].begin(), out[r].end());
  }
  MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  size_t total = 0;
  for (uint32_t r = 0; r < ranks_; ++r) {
    recv_at[r] = as_count(total);
    total += static_cast<size_t>(recv_counts[r]);
  }
  sim::Bytes received(total);
  MPI_Alltoallv(send.data(), send_counts.data(), send_at.data(), MPI_BYTE, received.data(),
                recv_counts.data(), recv_at.data(), MPI_BYTE, MPI_COMM_WORLD);
  std::vector<sim::Bytes> in(ranks_);
  for (uint32_t r = 0; r < ranks_; ++r) {
    const auto* from = received.data() + recv_at[r];
    in[r].assign(from, from + recv_counts[r]);
  }
  return in;
}

void Ranks::min_all(std::span<int64_t> values) {
  MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_INT64_T, MPI_MIN,
                MPI_COMM_WORLD);
}

void Ranks::sum_all(std::span<uint64_t> values) {
  MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_UINT64_T, MPI_SUM,
                MPI_COMM_WORLD);
}

std::vector<sim::Bytes> Ranks::gather_to_first(const sim::Bytes& mine) {
  const int size = as_count(mine.size());
  std::vector<int> sizes(rank_ == 0 ? ranks_ : 0), at(rank_ == 0 ? ranks_ : 0);
  MPI_Gather(&size, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  size_t total = 0;
  for (uint32_t r = 0; r < sizes.size(); ++r) {
    at[r] = as_count(total);
    total += static_cast<size_t>(sizes[r]);
  }
  sim::Bytes all(total);
  MPI_Gatherv(mine.data(), size, MPI_BYTE, all.data(), sizes.data(), at.data(), MPI_BYTE, 0,
              MPI_COMM_WORLD);
  std::vector<sim::Bytes> by_rank;
  for (uint32_t r = 0; r < sizes.size(); ++r) {
    by_rank.emplace_back(all.begin() + at[r], all.begin() + at[r] + sizes[r]);
  }
  return by_rank;
}

}  // namespace mpi
