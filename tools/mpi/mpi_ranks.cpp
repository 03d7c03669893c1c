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

// One message to each other rank and one from each, point to point: a receiver learns a
// message's size from the message itself (a matched probe, MPI 3.0), so a window's swap is one
// round of messages — where MPI_Alltoall of the sizes then MPI_Alltoallv of the bytes were two
// collectives, each a round between every pair. Messages come in the order they arrive. The tag
// alternates with the exchange's parity: a rank that has finished this exchange may already send
// for the next one, and that message must not be taken for this one (it cannot get two ahead:
// finishing the next exchange needs this rank's message of it).
std::vector<sim::Bytes> Ranks::exchange(std::vector<sim::Bytes> out) {
  if (out.size() != ranks_) throw std::invalid_argument("exchange: one buffer per rank");
  const int tag = static_cast<int>(exchanges_++ & 1);
  std::vector<MPI_Request> sends;
  sends.reserve(ranks_);
  for (uint32_t r = 0; r < ranks_; ++r) {
    if (r == rank_) continue;
    sends.emplace_back();
    MPI_Isend(out[r].data(), as_count(out[r].size()), MPI_BYTE, static_cast<int>(r), tag,
              MPI_COMM_WORLD, &sends.back());
  }
  std::vector<sim::Bytes> in(ranks_);
  for (uint32_t k = 1; k < ranks_; ++k) {
    MPI_Message message;
    MPI_Status status;
    MPI_Mprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &message, &status);
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    sim::Bytes& from = in[static_cast<size_t>(status.MPI_SOURCE)];
    from.resize(static_cast<size_t>(count));
    MPI_Mrecv(from.data(), count, MPI_BYTE, &message, MPI_STATUS_IGNORE);
  }
  MPI_Waitall(static_cast<int>(sends.size()), sends.data(), MPI_STATUSES_IGNORE);
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
