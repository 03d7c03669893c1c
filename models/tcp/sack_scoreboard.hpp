// A TCP sender's view of one message's outstanding segments [una, nxt), as RFC 6675 keeps it:
// which segments the receiver has SACKed, which count as lost (DupThresh segments SACKed above
// them, or sent longer before a segment since delivered than the reordering window: RACK,
// RFC 8985, which also finds lost retransmissions), which of those were retransmitted, and the
// pipe — segments believed in flight: neither SACKed nor lost, or retransmitted.
#pragma once

#include <cstdint>
#include <deque>

#include "sim/time.hpp"

namespace models {

class SackScoreboard {
 public:
  uint32_t una() const { return una_; }
  uint32_t nxt() const { return una_ + static_cast<uint32_t>(seg_.size()); }
  uint32_t pipe() const { return pipe_; }
  uint32_t sacked() const { return sacked_; }
  bool is_sacked(uint32_t psn) const { return in_range(psn) && (at(psn) & kSacked) != 0; }
  bool is_lost(uint32_t psn) const { return in_range(psn) && (at(psn) & kLost) != 0; }

  // `psn` == nxt(): a new segment goes out.
  void sent_new(sim::Time now) {
    seg_.push_back(0);
    sent_.push_back(now);
    ++pipe_;
  }
  // A lost segment is sent again.
  void retransmitted(uint32_t psn, sim::Time now) {
    uint8_t& s = at(psn);
    if ((s & kLost) != 0 && (s & kRetransmitted) == 0) ++pipe_;
    s |= kRetransmitted;
    sent_[psn - una_] = now;
  }
  // Cumulative acknowledgement of every segment below `ack`.
  void advance(uint32_t ack) {
    while (una_ < ack && !seg_.empty()) {
      const uint8_t s = seg_.front();
      if (in_pipe(s)) --pipe_;
      if ((s & kSacked) != 0) --sacked_;
      seg_.pop_front();
      sent_.pop_front();
      ++una_;
    }
    if (lost_hint_ < una_) lost_hint_ = una_;
  }
  // The receiver holds `psn` (a SACK block). False if it was known.
  bool sack(uint32_t psn) {
    if (!in_range(psn)) return false;
    uint8_t& s = at(psn);
    if ((s & kSacked) != 0) return false;
    if (in_pipe(s)) --pipe_;
    s |= kSacked;
    ++sacked_;
    return true;
  }
  // RFC 6675 IsLost: an un-SACKed segment with at least `dup_threshold` SACKed segments above
  // it. Returns how many were newly marked.
  uint32_t mark_losses(int64_t dup_threshold) {
    if (sacked_ < dup_threshold) return 0;
    uint32_t newly = 0;
    int64_t above = 0;
    for (size_t i = seg_.size(); i-- > 0;) {
      uint8_t& s = seg_[i];
      if ((s & kSacked) != 0) {
        ++above;
      } else if (above >= dup_threshold && (s & kLost) == 0) {
        if (in_pipe(s)) --pipe_;
        s |= kLost;
        ++newly;
        const uint32_t psn = una_ + static_cast<uint32_t>(i);
        if (psn < lost_hint_) lost_hint_ = psn;
      }
    }
    return newly;
  }
  // RACK (RFC 8985 §6.2): a segment delivered that was (last) sent at `delivered_sent` shows
  // every un-SACKed segment sent more than `reorder_window` before it lost — a retransmission
  // too, which is then due again. Returns how many were newly marked.
  uint32_t rack_mark(sim::Time delivered_sent, sim::Time reorder_window) {
    if (sacked_ == 0) return 0;  // no hole can exist below a cumulative ACK alone
    uint32_t newly = 0;
    for (size_t i = 0; i < seg_.size(); ++i) {
      uint8_t& s = seg_[i];
      if ((s & kSacked) != 0 || !in_pipe(s)) continue;
      if (sent_[i] + reorder_window >= delivered_sent) continue;
      --pipe_;
      s = kLost;  // lost (again): no longer counted as retransmitted
      ++newly;
      const uint32_t psn = una_ + static_cast<uint32_t>(i);
      if (psn < lost_hint_) lost_hint_ = psn;
    }
    return newly;
  }
  // The retransmission timeout: every un-SACKed segment is lost, none retransmitted since.
  void mark_all_lost() {
    for (uint8_t& s : seg_) {
      if ((s & kSacked) == 0) s = kLost;
    }
    pipe_ = 0;
    lost_hint_ = una_;
  }
  // The lowest lost segment not retransmitted yet, or UINT32_MAX.
  uint32_t next_lost() {
    while (lost_hint_ < nxt()) {
      const uint8_t s = at(lost_hint_);
      if ((s & kLost) != 0 && (s & (kRetransmitted | kSacked)) == 0) return lost_hint_;
      ++lost_hint_;
    }
    return UINT32_MAX;
  }
  // Pipe recounted from the flags (tests check the running count against it).
  uint32_t recount_pipe() const {
    uint32_t n = 0;
    for (uint8_t s : seg_) n += in_pipe(s) ? 1 : 0;
    return n;
  }

 private:
  static constexpr uint8_t kSacked = 1, kLost = 2, kRetransmitted = 4;
  static bool in_pipe(uint8_t s) {
    return (s & kSacked) == 0 && ((s & kLost) == 0 || (s & kRetransmitted) != 0);
  }
  bool in_range(uint32_t psn) const { return psn >= una_ && psn < nxt(); }
  uint8_t& at(uint32_t psn) { return seg_[psn - una_]; }
  uint8_t at(uint32_t psn) const { return seg_[psn - una_]; }

  std::deque<uint8_t> seg_;
  std::deque<sim::Time> sent_;  // when each segment was last sent
  uint32_t una_ = 0;
  uint32_t pipe_ = 0;
  uint32_t sacked_ = 0;
  uint32_t lost_hint_ = 0;  // no un-retransmitted lost segment below it
};

}  // namespace models
