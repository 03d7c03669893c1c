// Direct (point-to-point) collectives: all-to-all posts a message from every rank to every
// other rank at once (NCCL groups the sends and receives; nccl-tests' size is what a rank
// sends in all, 1/n of it to each rank, its own share staying local); send/recv sends the
// whole buffer from each rank to the next. Channels split each message; up to `slots` chunks
// are in flight on a connection.
#include <stdexcept>

#include "models/collectives/schedule.hpp"

namespace models {
namespace {

void pipelined_message(const ScheduleRequest& r, ScheduleBuilder& b, uint32_t src, uint32_t dst,
                       int64_t bytes) {
  const std::vector<int64_t> shares = split_bytes(bytes, r.channels, r.type_bytes);
  for (int c = 0; c < r.channels; ++c) {
    const int64_t chunks = chunk_count(shares[c], r.chunk_bytes);
    const std::vector<int64_t> pieces = split_bytes(shares[c], chunks, r.type_bytes);
    SlotWindow window(r.slots, 1);
    for (int64_t k = 0; k < chunks; ++k) {
      window.add(b, k, 0, b.add(src, dst, static_cast<uint32_t>(c), pieces[k]));
    }
  }
}

}  // namespace

void direct_schedule(const ScheduleRequest& r, ScheduleBuilder& b) {
  const int n = r.ranks;
  if (r.op == CollectiveOp::AllToAll) {
    const std::vector<int64_t> blocks = split_bytes(r.size_bytes, n, r.type_bytes);
    // Peers in shifted order (rank + 1, rank + 2, ...) so that no destination is everyone's
    // first.
    for (int shift = 1; shift < n; ++shift) {
      for (int src = 0; src < n; ++src) {
        const int dst = (src + shift) % n;
        pipelined_message(r, b, static_cast<uint32_t>(src), static_cast<uint32_t>(dst),
                          blocks[dst]);
      }
    }
  } else if (r.op == CollectiveOp::SendRecv) {
    for (int src = 0; src < n; ++src) {
      pipelined_message(r, b, static_cast<uint32_t>(src), static_cast<uint32_t>((src + 1) % n),
                        r.size_bytes);
    }
  } else {
    throw std::invalid_argument("the direct algorithm runs all_to_all and send_recv only");
  }
}

}  // namespace models
