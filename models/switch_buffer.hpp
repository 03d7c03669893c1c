// The switch MMU: packet memory accounted per (ingress port, priority) and per (egress port,
// priority), as merchant-silicon MMUs do (Broadcom-style; the ns-3 HPCC simulator's
// SwitchMmu; docs/references.md "One common MMU model").
//
// The buffer is split into three parts:
//   - reserves: `reserve_bytes` guaranteed to each (ingress port, priority), counted first;
//   - the headroom pool: bytes a lossless (ingress, priority) receives after it decided XOFF,
//     either the sum of every lossless (port, priority)'s headroom (each has its own) or a
//     smaller switch-wide pool they share (`headroom_pool_bytes`);
//   - the shared pool: whatever is left, used by every class above its reserve.
//
// Admission per packet:
//   - Lossless (PFC) class: within the reserve, admitted; else into the shared pool while the
//     (ingress, priority)'s shared bytes stay within its threshold (static `xoff_bytes`, or
//     α × free shared pool) and the pool has room. The first packet that would pass it goes
//     to headroom and decides XOFF; every packet arriving while XOFF holds goes to headroom
//     too; one that finds the headroom allocation (or the shared headroom pool) full is a
//     headroom exhaustion. XON when the headroom is empty and the shared bytes are zero or
//     `xon_offset_bytes` below the threshold. A dynamic threshold moves with the free pool:
//     XOFF/XON are judged when that (ingress, priority)'s own bytes change (on its arrivals
//     and departures, as the ns-3 HPCC simulator's MMU does), not when other ports move it.
//   - Lossy class: within the ingress reserve, admitted; else while the shared pool has room
//     and, with dynamic thresholds, while the egress (port, priority) holds at most α × free;
//     the egress `queue_limit` caps it in every mode. Otherwise tail drop.
//
// With no reserves, static thresholds and PFC off this is a shared buffer with tail drop.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "models/buffer_threshold.hpp"
#include "models/context.hpp"

namespace models {

struct SwitchBufferParams {
  int64_t buffer_bytes = 32'000'000;  // packet memory (Tomahawk-class: 32–64 MB)
  int64_t queue_limit_bytes = 0;      // per egress (port, priority) cap; 0 = no cap
  int64_t reserve_bytes = 0;          // guaranteed per (ingress port, priority)
  ThresholdMode threshold_mode = ThresholdMode::Static;
  Alpha alpha;  // dynamic threshold factor per (port, priority)
  // Classes per port: the 8 priorities, or an InfiniBand fabric's data VLs when more (up to
  // kMaxClasses). Not a scenario parameter: set by the builder from the fabric.
  int classes = kPriorities;
};

// Lossless thresholds of a switch (from the PFC parameters).
struct LosslessThresholds {
  int64_t xoff_bytes = 0;           // static threshold on an ingress's shared-pool bytes
  int64_t xon_offset_bytes = 0;     // resume this far below the threshold
  int64_t headroom_pool_bytes = 0;  // switch-wide headroom pool; 0 = every allocation in full
};

class IngressListener {
 public:
  // Ingress (port, priority) occupancy changed to `bytes` (credit-style flow control).
  virtual void on_ingress_bytes(uint16_t in_port, uint8_t priority, int64_t bytes) = 0;

 protected:
  ~IngressListener() = default;
};

// Hears a lossless (ingress port, priority) decide XOFF and XON (PFC sends the frames).
// `held_bytes`: what that ingress held when the decision was taken (for XOFF, before the
// packet that crossed the threshold).
class XoffListener {
 public:
  virtual void on_xoff(uint16_t in_port, uint8_t priority, int64_t held_bytes) = 0;
  virtual void on_xon(uint16_t in_port, uint8_t priority, int64_t held_bytes) = 0;

 protected:
  ~XoffListener() = default;
};

enum class Admission : uint8_t {
  Admitted,
  TailDrop,           // lossy class: shared pool, its threshold or the egress queue cap
  HeadroomExhausted,  // lossless class: more arrived after XOFF than its headroom holds
};

class SwitchBuffer {
 public:
  SwitchBuffer(const SwitchBufferParams& p, int ports)
      : params_(p),
        class_shift_(p.classes > kPriorities ? 4 : 3),
        ingress_(static_cast<size_t>(ports) << class_shift_),
        egress_(static_cast<size_t>(ports) << class_shift_) {
    static_assert(kPriorities == 1 << 3 && kMaxClasses == 1 << 4);
    for (auto& in : ingress_) {
      in.reserve = p.reserve_bytes;
      in.alpha = p.alpha;
    }
    for (auto& e : egress_) {
      e.queue_limit = p.queue_limit_bytes;
      e.alpha = p.alpha;
    }
    reserves_ = p.reserve_bytes * static_cast<int64_t>(ingress_.size());
    dynamic_ = p.threshold_mode == ThresholdMode::Dynamic;
    update_pools();
  }

  void set_listener(IngressListener* l) { listener_ = l; }
  void set_xoff_listener(XoffListener* l) { xoff_listener_ = l; }

  // Per-port, per-priority values (build time).
  void set_queue_limit(uint16_t port, uint8_t prio, int64_t bytes) {
    egress_[slot(port, prio)].queue_limit = bytes;
  }
  int64_t queue_limit(uint16_t port, uint8_t prio) const {
    return egress_[slot(port, prio)].queue_limit;
  }
  void set_reserve(uint16_t port, uint8_t prio, int64_t bytes) {
    int64_t& r = ingress_[slot(port, prio)].reserve;
    reserves_ += bytes - r;
    r = bytes;
    update_pools();
  }
  int64_t reserve(uint16_t port, uint8_t prio) const { return ingress_[slot(port, prio)].reserve; }
  void set_alpha(uint16_t port, uint8_t prio, Alpha a) {
    ingress_[slot(port, prio)].alpha = a;
    egress_[slot(port, prio)].alpha = a;
  }
  Alpha alpha(uint16_t port, uint8_t prio) const { return ingress_[slot(port, prio)].alpha; }

  // Makes (ingress port, priority) lossless with `headroom` bytes for what arrives after XOFF.
  void set_headroom(uint16_t in_port, uint8_t prio, int64_t headroom) {
    int64_t& h = ingress_[slot(in_port, prio)].headroom_limit;
    headroom_allocations_ += headroom - h;
    h = headroom;
    update_pools();
  }
  int64_t headroom(uint16_t in_port, uint8_t prio) const {
    return ingress_[slot(in_port, prio)].headroom_limit;
  }
  void set_lossless_thresholds(const LosslessThresholds& t) {
    lossless_ = t;
    update_pools();
  }

  // Bytes set aside for reserves and headroom; the shared pool is the rest (may be <= 0 when
  // misconfigured: the builder refuses that).
  int64_t reserved_bytes() const { return reserved_total_; }
  int64_t headroom_pool_bytes() const { return headroom_pool_; }
  int64_t shared_pool_bytes() const { return pool_; }

  // The shared-pool threshold of (ingress port, priority) for a lossless class, now.
  int64_t xoff_threshold(uint16_t in_port, uint8_t prio) const {
    return lossless_threshold(ingress_[slot(in_port, prio)]);
  }
  // α × free shared pool for (port, priority), now.
  int64_t dynamic_threshold_now(uint16_t port, uint8_t prio) const {
    return dynamic_threshold(pool_ - shared_used_, ingress_[slot(port, prio)].alpha);
  }

  // Hints: the records admit() reads for (ingress port, class) and (egress port, class).
  void prefetch_ingress(uint16_t in_port, uint8_t prio) const {
    __builtin_prefetch(&ingress_[slot(in_port, prio)]);
  }
  void prefetch_egress(uint16_t out_port, uint8_t prio) const {
    __builtin_prefetch(&egress_[slot(out_port, prio)]);
  }

  // Admits and accounts `bytes`, or refuses.
  Admission admit(uint16_t in_port, uint16_t out_port, uint8_t prio, int64_t bytes) {
    return admit(in_port, prio, out_port, prio, bytes);
  }
  // The same for a packet that leaves in another class than it came in (an InfiniBand switch's
  // SL -> VL table): ingress accounting in `in_prio`, egress in `out_prio`.
  Admission admit(uint16_t in_port, uint8_t in_prio, uint16_t out_port, uint8_t out_prio,
                  int64_t bytes) {
    const uint8_t prio = in_prio;  // the ingress class: PFC and credit decisions
    EgressSlot& e = egress_[slot(out_port, out_prio)];
    IngressSlot& in = ingress_[slot(in_port, in_prio)];
    const int64_t held = in.ingress_bytes - in.headroom_bytes;  // reserve + shared part
    const int64_t shared_delta =
        std::max<int64_t>(0, held + bytes - in.reserve) - std::max<int64_t>(0, held - in.reserve);
    if (in.headroom_limit > 0) {
      if (!in.xoff) {
        if (shared_delta == 0 || (shared_used_ + shared_delta <= pool_ &&
                                  held + bytes - in.reserve <= lossless_threshold(in))) {
          account(in, e, bytes, shared_delta);
          return Admission::Admitted;
        }
        // This packet would pass the threshold (or the pool is full): pause the upstream;
        // it and everything after it until XON lands in headroom.
        in.xoff = true;
        if (xoff_listener_ != nullptr) xoff_listener_->on_xoff(in_port, prio, in.ingress_bytes);
      }
      if (in.headroom_bytes + bytes > in.headroom_limit ||
          headroom_used_ + bytes > headroom_pool_) {
        return Admission::HeadroomExhausted;
      }
      in.headroom_bytes += bytes;
      in.peak_headroom_bytes = std::max(in.peak_headroom_bytes, in.headroom_bytes);
      headroom_used_ += bytes;
      peak_headroom_used_ = std::max(peak_headroom_used_, headroom_used_);
      account(in, e, bytes, 0);
      return Admission::Admitted;
    }
    if (shared_delta > 0) {
      if (shared_used_ + shared_delta > pool_) return Admission::TailDrop;
      if (dynamic_ && e.egress_bytes + bytes > dynamic_threshold(pool_ - shared_used_, e.alpha)) {
        return Admission::TailDrop;
      }
    }
    if (e.queue_limit > 0 && e.egress_bytes + bytes > e.queue_limit) return Admission::TailDrop;
    account(in, e, bytes, shared_delta);
    return Admission::Admitted;
  }

  // Releases `bytes` on dequeue: headroom first (so it is free again for the next XOFF
  // episode), then the shared part, the reserve last.
  void release(uint16_t in_port, uint16_t out_port, uint8_t prio, int64_t bytes) {
    release(in_port, prio, out_port, prio, bytes);
  }
  void release(uint16_t in_port, uint8_t in_prio, uint16_t out_port, uint8_t out_prio,
               int64_t bytes) {
    const uint8_t prio = in_prio;
    used_ -= bytes;
    egress_[slot(out_port, out_prio)].egress_bytes -= bytes;
    IngressSlot& in = ingress_[slot(in_port, in_prio)];
    const int64_t from_headroom = std::min(in.headroom_bytes, bytes);
    in.headroom_bytes -= from_headroom;
    headroom_used_ -= from_headroom;
    const int64_t held_before = in.ingress_bytes - in.headroom_bytes - from_headroom;
    in.ingress_bytes -= bytes;
    const int64_t held_after = held_before - (bytes - from_headroom);
    const int64_t shared_after = std::max<int64_t>(0, held_after - in.reserve);
    shared_used_ -= std::max<int64_t>(0, held_before - in.reserve) - shared_after;
    if (in.xoff && in.headroom_bytes == 0 &&
        (shared_after == 0 ||
         shared_after + lossless_.xon_offset_bytes <= lossless_threshold(in))) {
      in.xoff = false;
      if (xoff_listener_ != nullptr) xoff_listener_->on_xon(in_port, prio, in.ingress_bytes);
    }
    if (listener_ != nullptr) listener_->on_ingress_bytes(in_port, prio, in.ingress_bytes);
  }

  int64_t used() const { return used_; }
  int64_t peak_used() const { return peak_used_; }
  int64_t shared_used() const { return shared_used_; }
  int64_t peak_shared_used() const { return peak_shared_used_; }
  int64_t headroom_used() const { return headroom_used_; }
  int64_t peak_headroom_used() const { return peak_headroom_used_; }
  int64_t ingress_bytes(uint16_t in_port, uint8_t prio) const {
    return ingress_[slot(in_port, prio)].ingress_bytes;
  }
  int64_t peak_ingress_bytes(uint16_t in_port, uint8_t prio) const {
    return ingress_[slot(in_port, prio)].peak_ingress_bytes;
  }
  int64_t headroom_bytes(uint16_t in_port, uint8_t prio) const {
    return ingress_[slot(in_port, prio)].headroom_bytes;
  }
  int64_t peak_headroom_bytes(uint16_t in_port, uint8_t prio) const {
    return ingress_[slot(in_port, prio)].peak_headroom_bytes;
  }
  bool xoff(uint16_t in_port, uint8_t prio) const { return ingress_[slot(in_port, prio)].xoff; }
  int64_t egress_bytes(uint16_t out_port, uint8_t prio) const {
    return egress_[slot(out_port, prio)].egress_bytes;
  }
  size_t ports() const { return ingress_.size() >> class_shift_; }
  // Classes accounted per port (kPriorities, or kMaxClasses on InfiniBand with more VLs).
  int classes() const { return 1 << class_shift_; }
  const SwitchBufferParams& params() const { return params_; }

  // Its results, gathered from the process that ran it (sim/result_archive.hpp).
  void archive_results(sim::ResultArchive& a);

 private:
  // What is accounted for one (port, priority), split by role: admission and release touch
  // the ingress record of where the packet came in and the egress record of where it goes
  // out. Each record fits one cache line (a record with both roles spanned two), which on a
  // large fabric saves misses on every packet. α is kept in both (it serves both roles).
  struct alignas(64) IngressSlot {
    int64_t ingress_bytes = 0;   // arrived on this port and priority, still held (all parts)
    int64_t headroom_bytes = 0;  // the part of ingress_bytes in headroom (arrived after XOFF)
    int64_t reserve = 0;
    int64_t headroom_limit = 0;  // 0 = lossy
    int64_t peak_ingress_bytes = 0;
    int64_t peak_headroom_bytes = 0;
    Alpha alpha;
    bool xoff = false;
  };
  struct alignas(32) EgressSlot {
    int64_t egress_bytes = 0;  // queued for this port and priority
    int64_t queue_limit = 0;
    Alpha alpha;
  };
  static_assert(sizeof(IngressSlot) == 64 && sizeof(EgressSlot) == 32);
  size_t slot(uint16_t port, uint8_t prio) const {
    return (static_cast<size_t>(port) << class_shift_) + prio;
  }
  int64_t lossless_threshold(const IngressSlot& s) const {
    return dynamic_ ? dynamic_threshold(pool_ - shared_used_, s.alpha) : lossless_.xoff_bytes;
  }
  void account(IngressSlot& in, EgressSlot& e, int64_t bytes, int64_t shared_delta) {
    used_ += bytes;
    shared_used_ += shared_delta;
    e.egress_bytes += bytes;
    in.ingress_bytes += bytes;
    in.peak_ingress_bytes = std::max(in.peak_ingress_bytes, in.ingress_bytes);
    peak_used_ = std::max(peak_used_, used_);
    peak_shared_used_ = std::max(peak_shared_used_, shared_used_);
    // Slot index is recovered only for the listener (rare: credit-style flow control).
    if (listener_ != nullptr) {
      const size_t i = static_cast<size_t>(&in - ingress_.data());
      listener_->on_ingress_bytes(static_cast<uint16_t>(i >> class_shift_),
                                  static_cast<uint8_t>(i & ((size_t{1} << class_shift_) - 1)),
                                  in.ingress_bytes);
    }
  }
  void update_pools() {
    headroom_pool_ =
        lossless_.headroom_pool_bytes > 0 ? lossless_.headroom_pool_bytes : headroom_allocations_;
    reserved_total_ = reserves_ + headroom_pool_;
    pool_ = params_.buffer_bytes - reserved_total_;
  }

  SwitchBufferParams params_;
  int class_shift_;  // slots per port = 1 << class_shift_ (a shift, not a multiply, per packet)
  std::vector<IngressSlot> ingress_;
  std::vector<EgressSlot> egress_;
  LosslessThresholds lossless_;
  bool dynamic_ = false;
  int64_t pool_ = 0;           // shared pool size
  int64_t headroom_pool_ = 0;  // headroom pool size
  int64_t reserved_total_ = 0;
  int64_t reserves_ = 0;              // sum of the (port, priority) reserves
  int64_t headroom_allocations_ = 0;  // sum of the lossless (port, priority) headrooms
  int64_t used_ = 0;                  // all bytes held
  int64_t shared_used_ = 0;           // bytes in the shared pool
  int64_t headroom_used_ = 0;
  int64_t peak_used_ = 0;
  int64_t peak_shared_used_ = 0;
  int64_t peak_headroom_used_ = 0;
  IngressListener* listener_ = nullptr;
  XoffListener* xoff_listener_ = nullptr;
};

}  // namespace models
