// Packets live in a pool and move by 32-bit handle; nothing on the hot path allocates.
#pragma once

#include <atomic>
#include <cassert>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

#include "models/slot_store.hpp"
#include "sim/time.hpp"

namespace models {

using PacketHandle = uint32_t;
constexpr PacketHandle kNoPacket = 0xffffffffu;

// Pause: an IEEE 802.1Qbb PFC frame for one priority (`priority`) with its pause time
// (Packet::pause_quanta). Cnp: a RoCEv2 congestion notification packet (DCQCN) from a receiver
// to the sender of `qp`. FlowControl: an InfiniBand link-level flow-control packet for virtual
// lane `priority`, carrying the receiver's credit limit and its blocks sent
// (Packet::credit_limit, blocks_sent; models/ib/credit_return.hpp). Sharp: a packet of an
// in-network reduction (models/sharp/), addressed to the aggregation node at the other end of its
// link (Packet::sharp_tree, sharp_chunk); kFlagSharpResult on the way down.
enum class PacketType : uint8_t { Data, Ack, Nack, Pause, Cnp, FlowControl, Sharp };

// Packet::flags bits.
constexpr uint8_t kFlagCongestion = 1;  // on an ACK/NACK: data it answers arrived CE-marked
// On InfiniBand data: FECN, set by a congested switch port (IBA annex A10,
// models/ib/fecn_marker.hpp).
constexpr uint8_t kFlagFecn = 2;
constexpr uint8_t kFlagSharpResult = 4;  // on a Sharp packet: the reduced result, going down
constexpr uint8_t kFlagQpCounted = 8;    // counted in PacketPool::qp_packets until released
// NVLS-tree (models/collectives/nvls_tree_run.cpp): with kFlagSharpResult, a chunk the NVSwitch
// reduced and hands to the chunk's head GPU (multimem.ld_reduce), which takes it across the
// servers; alone, the head's global result going up to the NVSwitch for its multicast
// (multimem.st).
constexpr uint8_t kFlagSharpToHead = 16;
constexpr uint8_t kFlagSharpMulticast = 32;

// ECN codepoints (RFC 3168).
enum class Ecn : uint8_t { NotEct = 0, Ect0 = 2, Ce = 3 };

struct Packet {
  uint32_t qp = 0;  // queue pair (global index) this packet belongs to
  uint32_t src_host = 0;
  uint32_t dst_host = 0;
  uint32_t psn = 0;            // packet sequence number within the QP's message
                               // (for ACK/NACK: the next PSN expected by the receiver)
  uint32_t payload_bytes = 0;  // bytes of the message carried (0 for ACK/NACK)
  uint32_t wire_bytes = 0;     // bytes serialised on the link (headers + framing included)
  uint32_t route_id = 0;       // explicit route index + 1; 0 = ECMP by hash
  uint16_t udp_sport = 0;      // per-QP entropy for ECMP
  PacketType type = PacketType::Data;
  uint8_t priority = 0;  // traffic class 0..7 (InfiniBand: the virtual lane)
  Ecn ecn = Ecn::NotEct;
  uint8_t ttl = 64;
  uint8_t route_hop = 0;  // next index into the explicit route
  uint8_t flags = 0;      // kFlag* bits
  uint8_t dscp = 0;       // IP Differentiated Services codepoint, 0..63 (RFC 2474)
  uint8_t sl = 0;         // InfiniBand service level 0..15 (the LRH's SL; VL = SL2VL[sl])
  sim::Time ser_in;       // serialisation time on the link it arrived on
  // Data: when the NIC put it on the wire. ACK/NACK: the answered data packet's, echoed
  // (TIMELY's RTT samples, models/cc/timely.hpp).
  sim::Time sent_at;
  // In-band telemetry record (PacketPool::telemetry) carried by a data packet and echoed by
  // its ACK under HPCC; 0 = none.
  uint32_t int_slot = 0;
  // A TCP ACK's SACK block (RFC 2018): the PSN + 1 of the out-of-order segment it answers;
  // 0 = none.
  uint32_t sack_end = 0;

  // The fields of the control kinds, by name. A control frame has no sequence number or queue
  // pair of its own, so its fields live in those words (the packet stays one cache line): read
  // and write them only through these, on the kind they name.
  // Pause: the pause time in quanta of 512 bit times (IEEE 802.1Qbb); 0 = resume.
  uint32_t pause_quanta() const {
    assert(type == PacketType::Pause);
    return psn;
  }
  void set_pause_quanta(uint32_t quanta) { psn = quanta; }
  // FlowControl: the receiver's absolute credit limit (FCCL, in blocks) and the total blocks
  // its own side has sent on the lane (FCTBS), IBA vol. 1, 7.9.4.
  uint32_t credit_limit() const {
    assert(type == PacketType::FlowControl);
    return psn;
  }
  uint32_t blocks_sent() const {
    assert(type == PacketType::FlowControl);
    return qp;
  }
  void set_flow_control(uint32_t fccl, uint32_t fctbs) {
    psn = fccl;
    qp = fctbs;
  }
  // Sharp: the aggregation tree (or NVLS group) and the chunk of the reduction.
  uint32_t sharp_tree() const {
    assert(type == PacketType::Sharp);
    return qp;
  }
  uint32_t sharp_chunk() const {
    assert(type == PacketType::Sharp);
    return psn;
  }
  void set_sharp(uint32_t tree, uint32_t chunk) {
    qp = tree;
    psn = chunk;
  }
};

// A packet is one cache line at most: the pool is walked per hop and its memory traffic sets
// the speed of large fabrics (docs/benchmarks.md).
static_assert(sizeof(Packet) <= 64, "Packet must fit in one cache line");

// What a switch reads first for an arriving packet — its destination (the forwarding entry)
// and its class (the ingress buffer record) — carried beside it in the egress queue and on the
// link, where the packet itself is not read, so that the switch can be asked to load them a few
// events ahead (the run loop's prefetch pipeline: Link::prefetch). A hint only, taken for every
// packet without a test: for a packet the switch does not forward by its tables (a pause
// frame, an explicit route, a destination beyond 2^24) it loads lines that are not needed.
inline constexpr uint32_t kNoArrivalHint = 0xffffffff;
inline uint32_t arrival_hint(const Packet& p) {
  return (p.dst_host & 0xffffff) | (uint32_t{p.priority} << 24);
}

// In-band network telemetry of one egress port, pushed by a switch as a packet leaves it
// (HPCC; Li et al., SIGCOMM 2019, section 3.2): when, the port's transmitted bytes so far, its
// queue after the packet left, and its line rate.
struct IntHop {
  sim::Time time;
  uint64_t tx_bytes = 0;
  uint64_t queue_bytes = 0;
  int64_t rate_bps = 0;
};

// The telemetry a packet carries: at most kMaxIntHops hops (the HPCC paper's INT header holds
// 5 hops; a longer path overwrites from the first, as the ns-3 HPCC simulator's PushHop does).
constexpr uint32_t kMaxIntHops = 5;
struct IntRecord {
  uint32_t hops = 0;  // hops pushed (may exceed kMaxIntHops; the slot is hops % kMaxIntHops)
  IntHop hop[kMaxIntHops];
  void push(const IntHop& h) { hop[hops++ % kMaxIntHops] = h; }
  uint32_t count() const { return hops < kMaxIntHops ? hops : kMaxIntHops; }
};

// Per-QP counts of packets alive (PacketPool::qp_packets), in chunks whose table never moves:
// the transport makes room for each QP it adds (one adder at a time: its lock in a split run)
// while every partition counts. In a split run the counts are atomic: a QP's packets are
// taken and freed by its sender's and its receiver's partitions at once, and a count read as
// 0 (acquire) follows every access of the partition that freed the last one (release).
class QpPacketCounts {
 public:
  QpPacketCounts() : chunks_(kMaxChunks) {}
  ~QpPacketCounts() {
    for (uint32_t c = 0; c < chunk_count_; ++c) delete[] chunks_[c];
  }
  QpPacketCounts(const QpPacketCounts&) = delete;
  QpPacketCounts& operator=(const QpPacketCounts&) = delete;
  void set_atomic(bool on) { atomic_ = on; }
  // Room for QP ids below `n`.
  void ensure(uint32_t n) {
    while (uint64_t{chunk_count_} * kChunk < n) {
      chunks_[chunk_count_] = new std::atomic<uint32_t>[kChunk]();
      ++chunk_count_;
    }
  }
  void add(uint32_t qp) {
    std::atomic<uint32_t>& c = at(qp);
    if (atomic_) {
      c.fetch_add(1, std::memory_order_relaxed);
    } else {
      c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    }
  }
  void sub(uint32_t qp) {
    std::atomic<uint32_t>& c = at(qp);
    if (atomic_) {
      c.fetch_sub(1, std::memory_order_release);
    } else {
      c.store(c.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
    }
  }
  uint32_t get(uint32_t qp) const { return at(qp).load(std::memory_order_acquire); }

 private:
  static constexpr uint32_t kChunk = 4096;
  static constexpr uint32_t kMaxChunks = static_cast<uint32_t>((uint64_t{1} << 32) / kChunk);
  std::atomic<uint32_t>& at(uint32_t qp) const { return chunks_[qp / kChunk][qp % kChunk]; }
  sim::ChunkTable<std::atomic<uint32_t>*> chunks_;
  uint32_t chunk_count_ = 0;
  bool atomic_ = false;
};

// Chunked storage (slot_store.hpp): handles stay valid and references stay stable while the pool
// grows; each partition of a split run takes and gives back packets on its own free list.
class PacketPool {
 public:
  PacketHandle alloc() { return packets_.take(); }
  void release(PacketHandle h) {
    if (track_qps_) {
      const Packet& p = (*this)[h];
      if ((p.flags & kFlagQpCounted) != 0) qp_live_.sub(p.qp);
    }
    if (telemetry_on_.load(std::memory_order_relaxed)) {
      Packet& p = (*this)[h];
      if (p.int_slot != 0) release_telemetry(p.int_slot);
    }
    packets_.give_back(h);
  }
  // One free list per partition of a split run (before it runs).
  void set_partitions(uint32_t n) {
    packets_.set_partitions(n);
    records_.set_partitions(n);
    qp_live_.set_atomic(n > 1);
  }
  // In-band telemetry records (HPCC): a slot for a data packet, taken over by its ACK, freed
  // with whichever packet holds it last. Slot 0 is never used (it means none).
  uint32_t alloc_telemetry() {
    if (!telemetry_on_.load(std::memory_order_relaxed)) {
      telemetry_on_.store(true, std::memory_order_relaxed);
    }
    return records_.take();
  }
  void release_telemetry(uint32_t slot) { records_.give_back(slot); }
  IntRecord& telemetry(uint32_t slot) { return records_[slot]; }
  const IntRecord& telemetry(uint32_t slot) const { return records_[slot]; }
  // Records in use (a test of their conservation).
  size_t telemetry_in_use() const { return records_.in_use(); }
  // Per-QP count of live packets, on once a transport may reuse the ids of finished queue
  // pairs (models/transport.hpp; before a split run runs): a finished QP's id is reused only
  // when none of its packets (a late ACK, a duplicate, a CNP) is left anywhere in the network.
  void track_qp_packets() { track_qps_ = true; }
  bool tracks_qp_packets() const { return track_qps_; }
  // Room to count the packets of QP ids below `n` (the transport, as it adds QPs).
  void reserve_qp_counts(uint32_t n) { qp_live_.ensure(n); }
  // `p` (its `qp` set) is a packet of a queue pair: counted until released.
  void count_qp_packet(Packet& p) {
    if (!track_qps_) return;
    qp_live_.add(p.qp);
    p.flags |= kFlagQpCounted;
  }
  uint32_t qp_packets(uint32_t qp) const { return qp_live_.get(qp); }
  Packet& operator[](PacketHandle h) { return packets_[h]; }
  const Packet& operator[](PacketHandle h) const { return packets_[h]; }

  // A packet that came from another process of a run over several (Link::unpack_event): it
  // was made there, and is counted as made there only.
  PacketHandle alloc_arrived() {
    ++arrived_;
    return alloc();
  }
  // Once a run over several processes is over, in the process that gathers its results: the
  // packets the others made, and those they still hold.
  void add_elsewhere(uint64_t made, uint64_t live) {
    elsewhere_made_ += made;
    elsewhere_live_ += live;
  }

  uint64_t live() const { return packets_.in_use() + elsewhere_live_; }
  uint64_t allocated_total() const { return packets_.taken_total() - arrived_ + elsewhere_made_; }
  uint64_t capacity() const { return packets_.capacity(); }

 private:
  SlotStore<Packet, 4096> packets_;
  SlotStore<IntRecord, 1024> records_{1};
  bool track_qps_ = false;
  QpPacketCounts qp_live_;                 // by QP id, while track_qps_
  std::atomic<bool> telemetry_on_{false};  // set by any partition (a benign race otherwise)
  uint64_t arrived_ = 0;                   // between windows, on one thread
  uint64_t elsewhere_made_ = 0, elsewhere_live_ = 0;
};

}  // namespace models
