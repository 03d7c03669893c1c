// All-reduce by in-network reduction (SHARP) over an InfiniBand fabric, and by a GPU server's
// NVSwitch (NVLS, on either fabric: the NVLink domain is not the network): the groups of hosts,
// their aggregation trees (topologies/aggregation_tree.hpp), one AggregationEngine per switch
// of any tree, and the hosts' side.
//
// A host sends each chunk of its data once, up to its tree switch, and receives each chunk of
// the result once: it keeps at most SharpParams::max_outstanding_chunks chunks outstanding and
// sends the next one when a result chunk is complete. Its packets go through its NIC's port
// (and the port's credits) in the group's VL; the NIC hands arriving results back here. The
// all-reduce is done when every host has the whole result.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "models/context.hpp"
#include "models/sharp/aggregation_engine.hpp"
#include "models/sharp/sharp_params.hpp"
#include "sim/per_partition.hpp"
#include "sim/simulator.hpp"
#include "topologies/aggregation_tree.hpp"

namespace models {

class Nic;
class Switch;

// What one host of a group sent and received in the last all-reduce.
struct SharpHostCounters {
  int64_t data_sent = 0;
  int64_t data_received = 0;
  int64_t wire_sent = 0;
  int64_t wire_received = 0;
  sim::Time first_result;  // its first result packet
  sim::Time done;          // its last one
};

class SharpAllReduce final : public sim::EventHandler, public sim::RankShare {
 public:
  // `switch_of_node[node]`: the switch of a fabric node (nullptr for hosts); `nics[host]`;
  // `sl_to_vl`: the fabric's SL -> VL table; `mtu`/`overhead`: the NICs' payload per packet and
  // its header and framing bytes.
  SharpAllReduce(Context& ctx, const topo::Fabric& fabric, std::vector<Switch*> switch_of_node,
                 std::vector<Nic*> nics, const SharpParams& params,
                 const std::array<uint8_t, 16>& sl_to_vl, int64_t mtu, int64_t overhead);

  // A group of these hosts (host numbers, in rank order) on service level `sl` that is not
  // running an all-reduce now: an existing one, else a new one (its tree and its engines), so
  // two collectives over the same hosts at once each get their own tree.
  uint32_t group(const std::vector<uint32_t>& hosts, uint8_t sl) {
    return group(hosts, sl, params_);
  }
  // The same with the group's own parameters (chunk, window, and its aggregation nodes'
  // reduction rate and latency): NVLS groups of a GPU server's NVLink endpoints, reduced by
  // the server's NVSwitch (topologies/gpu_nodes.hpp, collectives/in_network_run.cpp).
  // `dedicated`: a group for NVLS-tree (set_heads) or CollNet (set_gate), never shared with a
  // plain one.
  uint32_t group(const std::vector<uint32_t>& hosts, uint8_t sl, const SharpParams& params,
                 bool dedicated = false);
  // Starts an all-reduce of `bytes` on the group now; `done` is called when every host has
  // the result, by the event that gave the last one its last packet (in a split run, where that
  // host is: the group's hosts' counters tell when each was done). Each host with no
  // `host_delay[i]` sends its first chunks at once; a delay holds back the i-th host's start
  // (an event of this handler's, in its partition: for a run of one list).
  // `chunk_bytes` > 0 replaces the group's chunk for this all-reduce (NCCL sizes NVLS chunks
  // per call, nccl_chunking.hpp).
  // `over_processes`: a run over several processes whose processes each hold some of the
  // group's hosts (run_over_processes); false for a group inside one partition, which runs in
  // that partition's process alone, as in one.
  void start(uint32_t group, int64_t bytes, std::function<void()> done,
             const std::vector<sim::Time>& host_delay = {}, int64_t chunk_bytes = 0,
             bool over_processes = false);
  // NVLS-tree (models/collectives/nvls_tree_run.cpp), on a group whose tree has one level (a
  // GPU server's NVSwitch): chunk j's reduction goes to host heads[j mod heads.size()] (a
  // position in the group's hosts), and `on_head_chunk(position, j)` is called when the head
  // has all of it; the head's multicast(group, j) later sends the chunk's global result up,
  // and the NVSwitch replicates it to every host, which completes the chunk as usual. Set
  // before start(); kept for the group's later all-reduces.
  void set_heads(uint32_t group, const std::vector<size_t>& heads,
                 std::function<void(size_t, int64_t)> on_head_chunk);
  void multicast(uint32_t group, int64_t chunk);
  // CollNet (models/collectives/collnet_run.cpp), on a group of head NICs, one per server: host
  // i sends chunk j only once release(group, i, j) has said its server's part of it is
  // reduced (inside the server), and `on_result_chunk(i, j)` is called when host i has chunk
  // j's whole result. Set before start(); kept for the group's later all-reduces.
  void set_gate(uint32_t group, std::function<void(size_t, int64_t)> on_result_chunk);
  void release(uint32_t group, size_t host, int64_t chunk);

  const topo::AggregationTree& tree(uint32_t group) const { return groups_[group]->tree; }
  const SharpChunks& chunks(uint32_t group) const { return *groups_[group]->chunks; }
  const std::vector<SharpHostCounters>& counters(uint32_t group) const {
    return groups_[group]->counters;
  }
  const SharpParams& params() const { return params_; }
  // The engine of a fabric node (nullptr when in no tree).
  const AggregationEngine* engine(int node) const { return engine_of_node_[node]; }

  // A run over several processes (sharp_processes.cpp): of an all-reduce started over them, a
  // process sends from, and takes the results of, its own hosts only; each host's end (its
  // counters) is told to every process, which ends the all-reduce once every host has — at the
  // boundary after the window of the last end, in every process at once (the call's end is the
  // hosts' latest).
  // NVLS-tree's heads and CollNet's gates are not run over processes (scenarios/run/
  // split_blockers.cpp refuses them).
  void run_over_processes();
  // Over processes: the group's i-th host sends its first chunks of the all-reduce start() began
  // (called by an event of the host's partition, first among its time's there).
  void start_host(uint32_t group, size_t i);
  void pack_share(sim::Bytes& out) override;
  void take_share(sim::ByteReader& in, uint32_t rank) override;
  void shares_taken() override;
  bool share_pending() const override;

  // Packets consumed so far: by the aggregation nodes and, as results, by the hosts (the run's
  // packet conservation check).
  uint64_t packets_consumed() const;
  // Over processes: the results each host's partition counted, each engine's counts
  // (models/archived_results.cpp).
  void archive_results(sim::ResultArchive& a);

  // A result packet reached host `host` (called by its NIC).
  void on_result(uint32_t host, const Packet& p);
  void on_event(uint32_t kind, uint64_t arg) override;

 private:
  enum Kind : uint32_t { kHostStart = 0, kDone = 1 };
  struct HostState {
    int64_t next_send = 0;        // next chunk to send
    int64_t completed = 0;        // result chunks complete
    uint32_t result_packets = 0;  // of the chunk being received
    // NVLS-tree: the next chunk this host heads, and its packets in so far.
    int64_t head_next = -1;
    uint32_t head_packets = 0;
    int64_t released = 0;  // gated groups: chunks this host may send (release())
  };
  struct Group {
    std::vector<uint32_t> hosts;
    SharpParams params;
    uint8_t sl = 0, vl = 0;
    topo::AggregationTree tree;
    std::unique_ptr<SharpChunks> chunks;  // engines keep a pointer to it
    std::vector<int> index_of_host;       // [host number] -> position in hosts, or -1
    std::vector<HostState> state;
    std::vector<SharpHostCounters> counters;
    // Hosts with the whole result: in a split run each counts in its NIC's partition, and the
    // last one ends the all-reduce.
    std::atomic<size_t> hosts_done{0};
    bool over_processes = false;  // this all-reduce's hosts' ends are told (start)
    std::function<void()> done;
    bool dedicated = false;
    std::vector<size_t> heads;  // NVLS-tree (set_heads); empty otherwise
    std::function<void(size_t, int64_t)> on_head_chunk;
    bool gated = false;  // CollNet (set_gate)
    std::function<void(size_t, int64_t)> on_result_chunk;
  };
  // A host's end of an all-reduce, told to every process (run_over_processes).
  struct HostDone {
    uint32_t group = 0;
    uint32_t index = 0;  // the host's position in the group
    SharpHostCounters counters;
  };
  // Every host of the group has the result: `done`, which may start the next all-reduce.
  void end_all_reduce(Group& g);
  // Sends host i's next chunks while its window (max_outstanding_chunks results not back) and,
  // in a gated group, its releases allow.
  void send_ready_chunks(Group& g, uint32_t group, size_t i);
  void send_chunk(Group& g, uint32_t group, size_t i);
  // Sends chunk j's packets from the group's i-th host, flagged `flags`.
  void send_packets(Group& g, uint32_t group, size_t i, int64_t j, uint8_t flags);
  void on_head_packet(Group& g, size_t i, const Packet& p);

  Context& ctx_;
  const topo::Fabric& fabric_;
  std::vector<Switch*> switch_of_node_;
  std::vector<Nic*> nics_;
  SharpParams params_;
  std::array<uint8_t, 16> sl_to_vl_;
  int64_t mtu_;
  int64_t overhead_;
  std::vector<std::unique_ptr<Group>> groups_;
  std::vector<std::unique_ptr<AggregationEngine>> engines_;
  std::vector<AggregationEngine*> engine_of_node_;
  // Result packets at hosts, all groups: counted where each host is (its NIC's partition).
  sim::PerPartition<uint64_t> results_received_;
  std::vector<std::vector<HostDone>> hosts_done_told_;  // per partition, until packed
  std::vector<uint32_t> groups_ended_;  // every host's end known: ended at shares_taken
};

}  // namespace models
