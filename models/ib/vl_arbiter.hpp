// InfiniBand VL arbitration at an output port (IBA 7.6.9): a high-priority and a low-priority
// table of (VL, weight) entries, weights in 64-byte units, and the limit of high priority.
//
// Within a table the arbiter stays on its current entry while that entry's VL has a packet that
// may go (credit and a ready head) and weight remains; each packet sent takes its bytes from the
// weight (a packet may start with any weight left, so the last one may overshoot; what it
// overshoots is not carried over). Then it moves to the next entry, whose full weight applies.
// Entries of weight 0 are skipped. High priority goes first, but after high_limit x 4096 bytes
// of high-priority packets in a row a low-priority packet that may go is sent first (limit 0:
// one high packet at a time; 255: no limit). The counter restarts when a low-priority packet is
// sent or none could be.
#pragma once

#include <cstdint>
#include <vector>

#include "models/egress_port.hpp"

namespace models {

struct VlArbEntry {
  uint8_t vl = 0;
  uint8_t weight = 0;  // 64-byte units, 0..255
};

struct VlArbitrationParams {
  std::vector<VlArbEntry> high;
  std::vector<VlArbEntry> low;
  int high_limit = 0;  // in 4096-byte units; 255 = unlimited
};

class VlArbiter final : public ClassArbiter {
 public:
  explicit VlArbiter(const VlArbitrationParams& p)
      : high_(p.high), low_(p.low), high_limit_(p.high_limit) {}

  int pick(uint32_t eligible, const EgressPort&) override {
    const bool high = (eligible & high_.mask) != 0;
    const bool low = (eligible & low_.mask) != 0;
    if (!low) high_bytes_ = 0;  // the low-priority opportunity came and went unused
    const bool limit_reached =
        high_limit_ != 255 &&
        (high_limit_ == 0 ? high_bytes_ > 0 : high_bytes_ >= int64_t{high_limit_} * 4096);
    if (high && !(low && limit_reached)) {
      from_high_ = true;
      return high_.pick(eligible);
    }
    if (low) {
      from_high_ = false;
      high_bytes_ = 0;
      return low_.pick(eligible);
    }
    // An eligible VL in neither table (weight 0 everywhere): it still may not starve the port.
    from_high_ = false;
    return __builtin_ctz(eligible);
  }

  void on_sent(int, uint32_t wire_bytes) override {
    if (from_high_) {
      high_.remaining -= wire_bytes;
      high_bytes_ += wire_bytes;
    } else {
      low_.remaining -= wire_bytes;
    }
  }

 private:
  struct Table {
    explicit Table(const std::vector<VlArbEntry>& e) : entries(e) {
      for (const auto& x : entries) {
        if (x.weight > 0) mask |= 1u << x.vl;
      }
      if (!entries.empty()) remaining = int64_t{entries[0].weight} * 64;
    }
    // The VL of the current entry if it may send, else of the next entry that may (caller
    // checked that one exists).
    int pick(uint32_t eligible) {
      for (size_t k = 0; k <= entries.size(); ++k) {
        const VlArbEntry& e = entries[current];
        if (e.weight > 0 && remaining > 0 && ((eligible >> e.vl) & 1u) != 0) return e.vl;
        current = (current + 1) % entries.size();
        remaining = int64_t{entries[current].weight} * 64;
      }
      return __builtin_ctz(eligible & mask);  // unreachable when mask & eligible != 0
    }
    std::vector<VlArbEntry> entries;
    uint32_t mask = 0;  // VLs with an entry of non-zero weight
    size_t current = 0;
    int64_t remaining = 0;  // bytes left on the current entry
  };

  Table high_;
  Table low_;
  int high_limit_;
  int64_t high_bytes_ = 0;  // high-priority bytes since the last low-priority opportunity
  bool from_high_ = false;
};

}  // namespace models
