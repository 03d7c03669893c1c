// The aggregation node of a switch (SHARP): the component a switch hands the packets addressed
// to it (PacketType::Sharp), for every aggregation tree the switch belongs to.
//
// Going up, per chunk: the packets of each child arrive through the switch's input buffers
// (they hold their blocks, and so the upstream credits, until the reduction unit has consumed
// them); packet n of a chunk is reduced once packet n of every child is in (its last bit plus
// the switch's latency), by one reduction unit per tree that serves packets in order at the
// reduction rate. When a chunk's last packet is reduced, after the node's latency, the reduced
// chunk goes to the parent (or, at the root, back down). Going down, a result chunk is received
// from the parent and, once whole and after the node's latency, replicated to every child. A
// chunk holds one of the tree's slots from its first packet until its result has gone down;
// hosts keep at most as many chunks outstanding as there are slots (SharpParams), so a chunk
// always finds its slot free (checked: a logic_error otherwise).
//
// What the node sends goes through the switch's egress ports and their flow control like any
// packet; it is not in the switch's buffer accounting (the node's own chunk memory holds it:
// QueuedPacket::in_port == kAggregationInPort).
#pragma once

#include <cstdint>
#include <vector>

#include "models/context.hpp"
#include "models/sharp/sharp_params.hpp"

namespace models {

class Switch;

// The in_port of packets the aggregation node queues at its switch's ports.
constexpr uint16_t kAggregationInPort = 0xffff;

struct AggregationStats {
  uint64_t packets_received = 0;  // from children and parent
  uint64_t chunks_reduced = 0;
  uint64_t packets_sent = 0;  // up and down (each copy)
};

class AggregationEngine final : public sim::EventHandler {
 public:
  AggregationEngine(Context& ctx, Switch& sw);

  // Joins tree `tree` (its id in the packets): the ports to the children, the port to the
  // parent (-1 at the root), the VL and SL of its packets, the chunk geometry of the runs
  // (read at each start()), and the tree's parameters (reduction rate and latency of this
  // node, chunk slots = the hosts' window): an InfiniBand switch's SHARP trees take
  // `infiniband.sharp`, an NVSwitch's NVLS trees the GPU server's (topologies/gpu_nodes.hpp).
  void add_tree(uint32_t tree, std::vector<int> child_ports, int parent_port, uint8_t vl,
                uint8_t sl, const SharpChunks* chunks, const SharpParams& params);
  // NVLS-tree, at the root of a one-level tree: the reduced chunk j goes to the child on port
  // head_ports[j mod size] (flagged kFlagSharpToHead) instead of to every child; that child
  // later sends the chunk's global result up (kFlagSharpMulticast), and the root replicates it
  // to every child, in chunk order (a GPU gathers the result chunks in order).
  void set_heads(uint32_t tree, std::vector<int> head_ports);
  // A new all-reduce on `tree` (every slot free, counters at zero).
  void start(uint32_t tree);
  // A Sharp packet arrived on `in_port`.
  void receive(PacketHandle h, uint16_t in_port);
  void on_event(uint32_t kind, uint64_t arg) override;

  const AggregationStats& stats() const { return stats_; }
  Switch& owner() { return switch_; }
  // Its counts, written where its switch is (models/archived_results.cpp).
  void archive_results(sim::ResultArchive& a);

 private:
  enum Kind : uint32_t {
    kReduced = 0,
    kEmitUp = 1,
    kDownArrived = 2,
    kReplicate = 3,
    kToHead = 4,
    kMulticastIn = 5
  };
  struct Slot {
    int64_t chunk = -1;
    uint32_t multicast_in = 0;      // NVLS-tree: packets of the head's result fully in
    bool result_in = false;         // ... all of them: the chunk may be replicated
    std::vector<uint32_t> arrived;  // [child] packets of this chunk in so far
    std::vector<uint32_t> hits;     // [packet] children whose packet n is in
    std::vector<sim::Time> ready;   // [packet] when the last of them is fully in
  };
  struct Tree {
    uint32_t id = 0;
    std::vector<int> child_ports;
    std::vector<int> child_of_port;  // [port] child index or -1
    int parent_port = -1;
    uint8_t vl = 0;
    uint8_t sl = 0;
    const SharpChunks* chunks = nullptr;
    SharpParams params;
    std::vector<Slot> slots;
    sim::Time busy_until;  // the reduction unit
    // The next packet whose reduction completes (kReduced events come in this order) and the
    // next result packet whose last bit arrives (kDownArrived).
    int64_t reduce_chunk = 0;
    uint32_t reduce_packet = 0;
    int64_t down_chunk = 0;
    uint32_t down_packet = 0;
    // NVLS-tree (set_heads): the ports of the chunks' heads, and the next chunk to replicate.
    std::vector<int> head_ports;
    int64_t replicate_next = 0;
  };
  void receive_up(Tree& t, uint32_t local, PacketHandle h, uint16_t in_port);
  void receive_down(Tree& t, uint32_t local, PacketHandle h, uint16_t in_port);
  void receive_multicast(Tree& t, uint32_t local, PacketHandle h, uint16_t in_port);
  // NVLS-tree: replicates, in chunk order, every chunk whose global result is in.
  void replicate_ready(Tree& t, uint32_t local);
  void reset_slot(Slot& s);
  void hold(uint16_t in_port, uint8_t vl, uint32_t wire);
  void unhold(uint16_t in_port, uint8_t vl, uint32_t wire);
  void send_chunk(const Tree& t, int64_t chunk, int port, uint8_t flags);

  Context& ctx_;
  Switch& switch_;
  std::vector<Tree> trees_;
  std::vector<int> local_of_tree_;  // [tree id] index into trees_ or -1
  AggregationStats stats_;
};

}  // namespace models
