// Which PSNs of a message a receiver already holds beyond the next expected one: the state of a
// receiver that accepts packets out of order (adaptive routing sends one QP's packets over
// several paths). ConnectX-5 and later place out-of-order RC packets directly into host memory
// ("Out-of-Order Data Placement", MLNX_OFED documentation) instead of dropping them and asking
// for a go-back-N retransmission; the responder then acknowledges cumulatively (the next PSN
// not yet received) and the message completes once every PSN has arrived.
//
// One bit per PSN of the message, allocated at the first out-of-order arrival of the QP (not per
// packet; a 1 MB message of 4 KiB packets needs 32 bytes).
#pragma once

#include <cstdint>
#include <vector>

namespace models {

class ReceivedPsns {
 public:
  // Marks `psn` (< total_packets) received; false when it already was (a duplicate).
  bool mark(uint32_t psn, uint32_t total_packets) {
    if (words_.empty()) words_.assign((total_packets + 63) / 64, 0);
    uint64_t& w = words_[psn / 64];
    const uint64_t bit = uint64_t{1} << (psn % 64);
    if ((w & bit) != 0) return false;
    w |= bit;
    return true;
  }
  bool has(uint32_t psn) const {
    return !words_.empty() && ((words_[psn / 64] >> (psn % 64)) & 1u) != 0;
  }
  // The first PSN at or after `from` not received yet (at most `total_packets`).
  uint32_t next_missing(uint32_t from, uint32_t total_packets) const {
    uint32_t psn = from;
    while (psn < total_packets && has(psn)) ++psn;
    return psn;
  }

 private:
  std::vector<uint64_t> words_;
};

}  // namespace models
