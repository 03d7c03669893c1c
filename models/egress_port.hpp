// An output port: one FIFO per traffic class, a class scheduler (strict priority and DWRR,
// egress_scheduler.hpp), and the serialiser that puts one packet at a time on the link. Flow
// control and marking plug in at named points without touching the switch: a FlowControlGate may
// hold a class (PFC pause, IB credits), a DequeueObserver hears every packet that leaves a queue
// (buffer release) and an EgressMarker every enqueue and send (ECN, FECN marking), and a
// PacketSource lets a NIC hand over data only when the wire is free (no deep NIC queue).
#pragma once

#include <array>
#include <cstdint>
#include <memory>

#include "models/context.hpp"
#include "models/egress_scheduler.hpp"
#include "models/link.hpp"
#include "models/ring.hpp"

namespace models {

class EgressPort;

// What a port's queue keeps of each packet: enough to schedule, admit to the wire and release
// buffer accounting without touching the packet itself (one cache miss per hop, not three).
// Marks a MAC control frame in QueuedPacket::priority (not a traffic class).
constexpr uint8_t kControlClass = 0xff;

struct QueuedPacket {
  PacketHandle handle = kNoPacket;
  uint32_t wire_bytes = 0;
  sim::Time ready_at;    // earliest start (a cut-through head waiting for its last bit)
  uint16_t in_port = 0;  // ingress port at this switch (buffer accounting)
  uint8_t priority = 0;
  // The class it arrived in (its ingress buffer accounting); differs from `priority` where an
  // InfiniBand switch's SL -> VL table moves it to another VL for the next link.
  uint8_t in_priority = 0;
  uint32_t arrival_hint = kNoArrivalHint;  // for the next switch (packet.hpp)
};
static_assert(sizeof(QueuedPacket) == 24, "three words per queued packet");

// Holds or releases traffic classes at a port. When a held class may go again, the gate calls
// port.wake().
class FlowControlGate {
 public:
  virtual bool may_send(uint8_t priority, uint32_t wire_bytes) = 0;
  // Called when the port starts sending a packet of the class (credit consumption).
  virtual void on_send(uint8_t priority, uint32_t wire_bytes) = 0;

 protected:
  ~FlowControlGate() = default;
};

// Hears the packets that leave a port's queues — sent, or discarded — so that their buffer
// accounting is released (a switch). Enqueues are not heard: the packet was admitted before it
// was queued, and a call there would be one indirect call per hop for nothing.
class DequeueObserver {
 public:
  virtual void on_dequeue(EgressPort& port, const QueuedPacket& q) = 0;

 protected:
  ~DequeueObserver() = default;
};

// Marks packets by the queue they join and leave (ECN, FECN): hears every enqueue and every
// packet sent (not a discarded one, which never leaves).
class EgressMarker {
 public:
  virtual void on_enqueue(EgressPort& port, const QueuedPacket& q) = 0;
  virtual void on_dequeue(EgressPort& port, const QueuedPacket& q) = 0;

 protected:
  ~EgressMarker() = default;
};

// Pull-side data for a NIC port. next_packet returns kNoPacket when nothing may go now; the
// source then calls port.wake() when it has something again.
class PacketSource {
 public:
  virtual PacketHandle next_packet(FlowControlGate* gate) = 0;
  // False when next_packet would return kNoPacket and change nothing whenever asked, until
  // the source calls port.wake() (the port then skips asking at the end of a transmission).
  virtual bool may_have_packets() const = 0;

 protected:
  ~PacketSource() = default;
};

// Chooses the next class among those whose head may start, instead of the strict/DWRR
// schedule (InfiniBand VL arbitration, models/ib/vl_arbiter.hpp). Control frames still go first.
class ClassArbiter {
 public:
  // `eligible`: bit c set when class c's head may start now (never 0). Returns such a class.
  virtual int pick(uint32_t eligible, const EgressPort& port) = 0;
  virtual void on_sent(int cls, uint32_t wire_bytes) = 0;

 protected:
  ~ClassArbiter() = default;
};

struct EgressStats {
  uint64_t packets = 0;
  uint64_t wire_bytes = 0;
  uint64_t tail_drops = 0;  // refused at enqueue (buffer full)
  std::array<uint64_t, kMaxClasses> class_tail_drops{};
  sim::Time busy_time;  // time the serialiser was sending
  // Time with packets queued but the serialiser idle: classes held by the gate (PFC pause,
  // no credits) or heads waiting for their last bit (store-and-forward). A work-conserving
  // port without flow control has none.
  sim::Time stalled_time;
  std::array<uint64_t, kMaxClasses> max_queue_bytes{};
  // Per traffic class: packets and wire bytes sent (MAC control frames are in neither).
  std::array<uint64_t, kMaxClasses> class_packets{};
  std::array<uint64_t, kMaxClasses> class_wire_bytes{};
};

class EgressPort final : public sim::EventHandler {
 public:
  EgressPort(Context& ctx, int64_t rate_bps, uint16_t index);

  // Traffic classes of this port: kPriorities (the default), or up to kMaxClasses for an
  // InfiniBand port with more than 8 data VLs. Build time, before any packet.
  void set_class_count(int classes);
  int class_count() const { return class_count_; }

  void connect(Link* link) { link_ = link; }
  void set_gate(FlowControlGate* g) { gate_ = g; }
  // Hears dequeues (and discards), not enqueues.
  void set_observer(DequeueObserver* o) { observer_ = o; }
  // Marking (ECN, FECN): hears enqueues and sends, after the observer.
  void set_marker(EgressMarker* m) { marker_ = m; }
  EgressMarker* marker() const { return marker_; }
  void set_source(PacketSource* s) { source_ = s; }
  void set_arbiter(ClassArbiter* a) { arbiter_ = a; }
  // Which classes are strict and which share the link by DWRR (default: all strict).
  void set_schedule(const ClassSchedule& s) {
    weighted_classes_ = s.weighted_mask();
    dwrr_.configure(s);
  }

  // Queue a packet in its traffic class and start sending if idle. `in_port` is where it
  // entered this node (switches), `ready_at` when it may start at the earliest.
  void enqueue(PacketHandle h, const Packet& p, uint16_t in_port = 0,
               sim::Time ready_at = sim::Time(0)) {
    enqueue(h, p, in_port, ready_at, p.priority);
  }
  // The same, for a packet that arrived in class `in_priority` (an InfiniBand switch that moved
  // it to another VL).
  void enqueue(PacketHandle h, const Packet& p, uint16_t in_port, sim::Time ready_at,
               uint8_t in_priority);
  // Try to start a transmission (after a gate opened or a source got data).
  void wake();
  void count_tail_drop(uint8_t priority) {
    ++tail_drops_;
    ++cls(priority).tail_drops;
  }
  // MAC control frames (PFC): sent before any data, never held by the gate.
  void send_control(PacketHandle h, const Packet& p);
  // PFC watchdog's drop action: discard every packet queued in a class now, and while
  // `discarding` every packet that reaches it (buffer released as on a dequeue, packet freed).
  void set_discard(uint8_t priority, bool discarding);
  void discard_queued(uint8_t priority);
  // Packets and wire bytes discarded that way (all classes).
  uint64_t discarded_packets() const { return discarded_packets_; }
  uint64_t discarded_bytes() const { return discarded_bytes_; }

  void on_event(uint32_t kind, uint64_t arg) override;
  // At the end of a transmission — depth 0: the link, the gate and the highest class's line;
  // depth 1: that class's head in its ring.
  void prefetch(uint32_t kind, uint64_t, int depth) const override {
    if (kind != kTxDone) return;
    const int top = nonempty_classes_ != 0 ? 31 - __builtin_clz(nonempty_classes_) : -1;
    if (depth == 0) {
      __builtin_prefetch(link_);
      if (gate_ != nullptr) __builtin_prefetch(gate_);
      if (top >= 0) __builtin_prefetch(&cls(top));
    } else if (top >= 0) {
      __builtin_prefetch(&cls(top).queue.front());
    }
  }

  // A hint before a packet of class `prio` is enqueued here: the hot line, and the class's.
  void prefetch_enqueue(int prio) const {
    __builtin_prefetch(this);
    __builtin_prefetch(&cls(prio));
  }

  int64_t rate_bps() const { return rate_bps_; }
  uint16_t index() const { return index_; }
  Link* link() const { return link_; }
  // Serialising a packet now.
  bool busy() const { return busy_ && (tx_done_pushed_ || !ctx_.sim.passed(tx_done_)); }
  uint64_t queue_bytes(int priority) const { return cls(priority).bytes; }
  uint64_t total_queue_bytes() const { return total_queue_bytes_; }
  // Wire bytes this port has put on its link (every class and control frame).
  uint64_t sent_wire_bytes() const { return sent_wire_bytes_; }
  size_t queue_packets(int priority) const { return cls(priority).queue.size(); }
  // Packets sent so far in a class (a stuck class's count does not move).
  uint64_t class_packets_sent(int priority) const { return cls(priority).packets; }
  // The i-th packet queued in a class, from the head (deadlock diagnosis, not the packet path).
  const QueuedPacket& queued(int priority, size_t i) const { return cls(priority).queue[i]; }
  // Assembled from the per-class records (reporting, not the packet path).
  EgressStats stats() const;
  // Closes an open stalled interval at the end of a run.
  void finish_accounting();

  // Its results, gathered from the process that ran it (sim/result_archive.hpp).
  void archive_results(sim::ResultArchive& a);

 private:
  enum Kind : uint32_t { kTxDone = 0, kReady = 1 };
  void try_send();
  bool pick(QueuedPacket& out);
  bool pick_arbitrated(QueuedPacket& out);
  void arm_ready(sim::Time earliest_ready);
  bool may_start(int prio, sim::Time now, sim::Time& earliest_ready);
  void take(int prio, QueuedPacket& out);
  void start(const QueuedPacket& q);
  void request_send();
  bool try_send_once();
  void discard(const QueuedPacket& q);
  // The end of the current transmission is an event only when something may go next (a queued
  // packet, or a pull source with work): a port that carries a lone packet reserves its place in
  // the event order (sim::Reservation) and pushes it only if a packet arrives or the source wakes
  // it before the end, so the order of events, and every result, is the same as with an event per
  // packet.
  bool transmitting() {
    if (busy_ && !tx_done_pushed_ && ctx_.sim.passed(tx_done_)) {
      busy_ = false;  // ended with nothing to send: what the end's event would have done
      ctx_.sim.release(tx_done_);
    }
    return busy_;
  }
  void push_tx_done() {
    tx_done_pushed_ = true;
    ctx_.sim.at(tx_done_, this, kTxDone);
  }

  // Everything a packet of one class touches at this port, in one cache line: on a large
  // fabric each line a hop touches is a likely cache miss, and per-class arrays side by side
  // (queue, bytes, peak, counters) cost one line each.
  struct alignas(64) ClassState {
    Ring<QueuedPacket> queue;
    uint64_t bytes = 0;      // queued wire bytes
    uint64_t max_bytes = 0;  // peak of `bytes`
    uint64_t packets = 0;    // sent
    uint64_t wire_bytes = 0;
    uint64_t tail_drops = 0;  // refused at enqueue (rare: last, still inside the line)
  };
  // Classes 0..7 are in the port; classes 8.. (InfiniBand VLs 8..14) apart, so that a port
  // without them keeps its size and its lines. The branch is always taken the same way on a
  // fabric of 8 classes or fewer.
  ClassState& cls(int c) { return c < kPriorities ? classes_[c] : extra_classes_[c - kPriorities]; }
  const ClassState& cls(int c) const {
    return c < kPriorities ? classes_[c] : extra_classes_[c - kPriorities];
  }

  // Hot fields first, in one cache line: what every transmission reads.
  Context& ctx_;
  Link* link_ = nullptr;
  int64_t rate_bps_;
  FlowControlGate* gate_ = nullptr;
  DequeueObserver* observer_ = nullptr;
  EgressMarker* marker_ = nullptr;
  PacketSource* source_ = nullptr;
  uint16_t nonempty_classes_ = 0;  // bit p set when class p holds packets
  uint16_t index_;
  uint8_t weighted_classes_ = 0;  // bit p set when class p is in the DWRR group (p < 8)
  bool busy_ = false;             // a transmission started and its end not yet handled
  bool tx_done_pushed_ = false;   // that end is an event in the list
  bool in_try_send_ = false;      // choosing or starting a packet (request_send waits)
  bool send_requested_ = false;   // a request came meanwhile
  bool stalled_ = false;
  uint8_t discard_classes_ = 0;  // bit p set while the watchdog discards PFC priority p
  uint64_t total_queue_bytes_ = 0;
  // Per-port counters every transmission updates, next to the control queue.
  uint64_t sent_packets_ = 0;
  uint64_t sent_wire_bytes_ = 0;
  sim::Time busy_time_;
  sim::Reservation tx_done_;
  Ring<QueuedPacket> control_;
  std::array<ClassState, kPriorities> classes_;
  std::unique_ptr<ClassState[]> extra_classes_;  // classes kPriorities.. (set_class_count)
  int class_count_ = kPriorities;
  bool ready_event_pending_ = false;  // rarely read: out of the hot lines
  uint64_t tail_drops_ = 0;
  uint64_t discarded_packets_ = 0;
  uint64_t discarded_bytes_ = 0;
  sim::Time stalled_time_;
  sim::Time stalled_since_;
  DwrrScheduler dwrr_;
  ClassArbiter* arbiter_ = nullptr;
};

}  // namespace models
