// Reliable-connected transport state: messages (flows) striped over queue pairs, go-back-N
// sender and in-order receiver per queue pair, completion bookkeeping. NICs move the packets;
// this holds what a QP context holds in NIC memory.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "models/context.hpp"
#include "models/nic_params.hpp"
#include "models/received_psns.hpp"
#include "models/workloads/flow_spec.hpp"
#include "sim/per_partition.hpp"
#include "sim/stable_vector.hpp"

namespace models {

class Nic;

struct QueuePair {
  uint32_t id = 0;
  uint32_t flow = 0;
  uint32_t src_host = 0;
  uint32_t dst_host = 0;
  uint16_t udp_sport = 0;
  uint8_t priority = 3;
  uint8_t dscp = 26;
  uint32_t route_id = 0;
  int64_t bytes = 0;
  uint32_t total_packets = 0;
  uint32_t last_payload = 0;
  // Sender (requester) side.
  uint32_t snd_nxt = 0;  // next PSN to send
  uint32_t snd_una = 0;  // oldest unacknowledged PSN
  bool in_active_list = false;
  bool posted = false;
  // A connection's messages are one QP's work requests, served in order (start_flow_in_order):
  // the QP posted behind this one on its connection, and whether this one waits for the QP
  // ahead of it to send its last packet.
  uint32_t fifo_next = UINT32_MAX;
  bool behind = false;
  bool done = false;
  bool tcp = false;  // a kernel TCP message (models/tcp/tcp_stack.hpp), not an RDMA one
  sim::Time finish;
  sim::Time rto_horizon;  // TCP: the latest deadline its RTO timer was ever armed for
  uint64_t retransmitted_packets = 0;
  uint64_t timeouts = 0;
  uint64_t nacks_received = 0;
  int64_t rate_bps = 0;  // rate limiter (line rate unless congestion control lowers it)
  sim::Time next_send_at;
  sim::Time last_sent_at;  // when the last data packet went out, and its wire size: the
  uint32_t last_wire = 0;  // pacing gap is recomputed from them when the rate changes
  std::unique_ptr<sim::Timer> rto;
  // Receiver (responder) side.
  uint32_t expected_psn = 0;
  uint32_t unacked = 0;
  uint32_t nacked_psn = UINT32_MAX;  // a NACK for this PSN is outstanding (send it once)
  bool congestion_to_echo = false;   // CE-marked data arrived since the last ACK/NACK
  uint64_t delivered_bytes = 0;
  sim::Time delivered_at;  // when its last packet reached the host (one-way message latency)
  bool delivered = false;  // every packet has reached the host (delivered_at is set)
  uint64_t duplicate_packets = 0;
  uint64_t out_of_order_packets = 0;  // arrived ahead of a missing PSN
  ReceivedPsns received;              // PSNs held ahead of expected_psn (out-of-order receiver)
};

struct FlowState {
  FlowSpec spec;
  uint32_t first_qp = 0;
  uint32_t qp_count = 0;
  uint32_t qps_remaining = 0;
  uint32_t qps_undelivered = 0;  // QPs whose last packet has not yet reached the receiver
  bool done = false;
  bool recycle = false;  // its slot and QPs are reused once it is finished (add_flow)
  sim::Time finish;
  // What the workload that posted it knows it by (a collective's message), its own to set and
  // read: the transport calls back with the flow id only.
  const void* owner = nullptr;
  int64_t owner_tag = 0;
};

// Counters of the messages whose slots were reused: what the per-flow sums of the run's
// statistics would have held for them.
struct RetiredFlowTotals {
  uint64_t flows = 0;
  uint64_t retransmitted_packets = 0;
  uint64_t timeouts = 0;
  uint64_t nacks_received = 0;
  uint64_t duplicate_packets = 0;
};

// Hears about completed messages (workload generators that chain work, stop conditions).
class CompletionListener {
 public:
  virtual void on_flow_complete(uint32_t flow) = 0;
  // Every packet of the message has reached the receiving host (before its completion, which
  // waits for the last acknowledgement): what a receiver polling its buffer sees.
  virtual void on_flow_delivered(uint32_t /*flow*/) {}

 protected:
  ~CompletionListener() = default;
};

class Transport final : public sim::EventHandler, public sim::RankShare {
 public:
  Transport(Context& ctx, const NicParams& params)
      : EventHandler(ctx.sim), ctx_(ctx), params_(params) {
    connection_tail_.resize(ctx.sim.partitions());
    retired_.resize(ctx.sim.partitions());
  }

  void set_nics(std::vector<Nic*> nics) { nics_ = std::move(nics); }
  // The NIC of `host` as an event handler: what a per-QP timer of a controller acts for
  // (sim::Timer), so that it runs in that NIC's partition of a split run; null without NICs.
  sim::EventHandler* nic_handler(uint32_t host) const;
  void add_listener(CompletionListener* l) { listeners_.push_back(l); }
  // TCP messages are cut into segments of `mss` bytes; `by_default`: flows that name no
  // transport run over TCP (fabric.transport "tcp"); `hosts`: the hosts with a kernel stack
  // (a GPU's NVLink endpoint has none: its messages stay NVLink transfers).
  void set_tcp(int64_t mss, bool by_default, std::vector<bool> hosts) {
    tcp_mss_ = mss;
    tcp_by_default_ = by_default;
    tcp_hosts_ = std::move(hosts);
  }
  bool is_tcp(const FlowSpec& spec) const {
    const bool asked = spec.transport == FlowTransport::Tcp ||
                       (spec.transport == FlowTransport::Fabric && tcp_by_default_);
    return asked && static_cast<size_t>(spec.src_host) < tcp_hosts_.size() &&
           tcp_hosts_[spec.src_host];
  }
  // Adds a flow and its queue pairs; `route_id` is its explicit route (0 = ECMP). In a split
  // run any partition may add flows while others read theirs: new ids are taken under a lock,
  // the tables never move (sim::StableVector), and each partition reuses the slots of the
  // flows it finished (a flow finishes where its sender is, and its sender adds the next
  // message). Ids then follow the order in which threads took them: nothing depends on an
  // id's value but the output of flows.csv, which lists only the workload's flows, added
  // before the run. A `recycle`
  // flow (a collective's message) gives its flow id and QP ids back once it has finished and
  // every listener has heard of it; a later recycle flow with as many QPs reuses them when
  // nothing refers to them any more (transport_recycling.cpp: no packet of them left, out of
  // their NIC's round-robin list). Ids are stable while in use.
  // Memory then follows the messages in flight, not the messages posted.
  uint32_t add_flow(const FlowSpec& spec, uint32_t route_id, uint16_t first_udp_sport,
                    bool recycle = false);
  // Something keeps per-QP state by id beyond a QP's life (DCQCN's rate state): ids are then
  // never reused.
  void keep_qp_ids() { keep_qp_ids_ = true; }
  // Called with the QP count whenever QPs are added (the controllers' per-QP state: under the
  // adding lock in a split run).
  void set_qp_reserver(std::function<void(size_t)> f) { qp_reserver_ = std::move(f); }
  // Before a run whose collectives post recycle flows (a split run's partitions then need
  // the packet pool's per-QP counts from the start).
  void prepare_recycling();
  // The messages whose slots were reused, all partitions'.
  RetiredFlowTotals retired() const;
  // Schedules every flow's start.
  void schedule_starts();
  // Posts a flow's queue pairs now (flows added while the simulation runs: collectives).
  void start_flow(uint32_t flow) { on_event(0, flow); }
  // The same for a message on a connection (its source, destination and UDP source port) that
  // carries a sequence of messages, as an NCCL channel's connection does: the NIC serves a
  // QP's work requests in order, so a message posted while the connection's previous one
  // still has packets to send for the first time starts sending when that one has sent its
  // last (its post latency runs meanwhile). Flows of several QPs start as start_flow.
  void start_flow_in_order(uint32_t flow);

  QueuePair& qp(uint32_t id) { return qps_[id]; }
  const QueuePair& qp(uint32_t id) const { return qps_[id]; }
  // The workload that posted `flow` names it (FlowState::owner, owner_tag).
  void set_owner(uint32_t flow, const void* owner, int64_t tag) {
    flows_[flow].owner = owner;
    flows_[flow].owner_tag = tag;
  }
  size_t qp_count() const { return qps_.size(); }
  const FlowState& flow(uint32_t id) const { return flows_[id]; }
  size_t flow_count() const { return flows_.size(); }
  // Flows done: a flow's state (its finish) is set before it counts here, and whoever reads
  // the count sees the states of the flows it counts (a split run's partitions count at once).
  size_t flows_done() const { return flows_done_.load(std::memory_order_acquire); }
  const NicParams& params() const { return params_; }
  // Finished recycle flows waiting for reuse (their slots count in flow_count()).
  size_t flows_retired() const;

  // Congestion control changed `qp.rate_bps`: its NIC re-paces it.
  void rate_changed(QueuePair& qp);
  // Called by the sender NIC when the last PSN of a QP is acknowledged.
  void on_qp_complete(QueuePair& qp);
  // Called by the receiver NIC when the last PSN of a QP has arrived in order.
  void on_qp_delivered(QueuePair& qp);

  void on_event(uint32_t kind, uint64_t arg) override;  // flow starts

  // A run over several processes (sim/rank_exchange.hpp; after the flows of the workload are
  // added, before it runs): a flow added while it runs (a collective's message) takes its
  // ids from blocks of its sender's partition — block k of partition p at the same place in
  // every process —, and between windows the processes tell each other of the flows they
  // added or reused (RankShare), so that each holds every flow under the same ids, its
  // receivers' side included, before any packet of it arrives. A finished recycle flow is told
  // to every process too, and its slot is reused only once every process has seen none of its
  // packets at a window's end (no one process sees every packet left of it).
  // The ids of a block not taken yet are spare slots: no flow.
  void run_over_processes();
  // Flows added: flow_count() less the spare slots (flow(i).spec.src_host < 0).
  size_t flows_posted() const { return flows_.size() - spare_flows_; }
  // What a flow's owner is known by to other processes: its number among those registered
  // (before the run, in the same order in every process).
  void register_owner(const void* owner) { owners_.push_back(owner); }
  void pack_share(sim::Bytes& out) override;
  void take_share(sim::ByteReader& in, uint32_t rank) override;
  void shares_taken() override;
  bool share_pending() const override;

  // Its results, gathered from the process that ran it (sim/result_archive.hpp).
  void archive_results(sim::ResultArchive& a);  // each QP's sides by their hosts

 private:
  Context& ctx_;
  NicParams params_;
  std::vector<Nic*> nics_;
  sim::StableVector<QueuePair, 256> qps_;
  sim::StableVector<FlowState, 256> flows_;
  std::mutex add_mutex_;  // add_flow in a split run
  std::vector<CompletionListener*> listeners_;
  std::atomic<size_t> flows_done_{0};  // counted by every partition's NICs
  int64_t tcp_mss_ = 0;
  bool tcp_by_default_ = false;
  std::vector<bool> tcp_hosts_;

  // Fills the flow `flow_id` and its QPs from `first_qp` on (fresh slots, or a reused one's).
  void fill_flow(uint32_t flow_id, uint32_t first_qp, const FlowSpec& spec, uint32_t route_id,
                 uint16_t first_udp_sport, bool recycle, bool reused);
  // The packets of `spec` over `mtu`-byte packets, and the QPs they use.
  int64_t used_qps(const FlowSpec& spec) const;
  // Runs over processes (transport_processes.cpp): the next fresh flow id and first QP id of
  // `partition`'s blocks for a flow of `qps` QPs; the tables grown to hold a block (its spare
  // slots counted).
  std::pair<uint32_t, uint32_t> block_ids(uint32_t partition, uint32_t qps);
  void grow_flows(size_t n);
  void grow_qps(size_t n);
  struct IdBlocks {
    uint32_t next_flow = 0, flow_end = 0, flow_blocks = 0;
    uint32_t next_qp = 0, qp_end = 0, qp_blocks = 0;
  };
  bool over_processes_ = false;
  size_t flow_base_ = 0, qp_base_ = 0;  // the tables' sizes before the run
  size_t spare_flows_ = 0;              // under add_mutex_, or between windows
  sim::PerPartition<IdBlocks> id_blocks_;
  struct Added {
    uint32_t flow = 0;
    bool reused = false;
  };
  sim::PerPartition<std::vector<Added>> added_;  // flows added since the last pack
  std::vector<const void*> owners_;
  // Finished recycle flows since the last pack (by their senders' partitions), and those told
  // to every process and not yet seen free of packets by all (the same list in every process):
  // how many of them the last pack reported on, and which any process holds packets of.
  sim::PerPartition<std::vector<uint32_t>> finished_;
  std::vector<uint32_t> clearing_;
  size_t reported_ = 0;
  std::vector<uint8_t> held_;
  std::vector<uint32_t> told_finished_;  // by this exchange, in the order of the ranks
  // A slot told reused: this process's receiver side of its last use is over.
  void retire_receiver_side(uint32_t flow);

  // Recycling (transport_recycling.cpp).
  bool ready_for_reuse(const FlowState& f) const;
  // A ready retired flow id of `partition`'s, or UINT32_MAX.
  uint32_t reuse_slot(uint32_t qp_count, uint32_t partition);
  // The partition of `host`'s NIC: what its connections and retired slots are kept by (a
  // message may be posted between windows, on a thread of no partition).
  uint32_t partition_of(int64_t host) const;
  void retire(uint32_t flow);
  bool keep_qp_ids_ = false;
  std::function<void(size_t)> qp_reserver_;
  // Per partition: the finished recycle flows by QP count, how many, and the totals of the
  // ones reused; the RTO timers of reused QPs (a cancelled timer keeps its last event queued
  // until at most one RTO after its QP finished; it lives until then, FIFO by that time).
  struct Retired {
    std::vector<std::deque<uint32_t>> by_qps;
    size_t count = 0;
    RetiredFlowTotals totals;
    std::deque<std::pair<sim::Time, std::unique_ptr<sim::Timer>>> timer_graveyard;
  };
  sim::PerPartition<Retired> retired_;
  // start_flow_in_order: per connection, the QP of its latest message (per partition of the
  // connection's source: its messages are posted there, or between windows).
  sim::PerPartition<std::unordered_map<uint64_t, uint32_t>> connection_tail_;
};

}  // namespace models
