// Runs a collective workload on the transport: the sizes of a spec one after another (as
// nccl-tests does), each as its schedule of messages. A message becomes a transport message
// (reliable-connected queue pairs between the two ranks' endpoints; one UDP source port per
// connection, so a connection keeps its path as a real QP does). A message's delivery (its
// last packet at the receiver, which NCCL's receiver sees by polling its buffer) releases the
// messages its receiver sends next; its completion (the sender's last acknowledgement, as an
// RDMA write completion) releases the others (the sender's next use of the connection's
// slot) and ends the call once every message is complete. NCCL's software costs (launch per
// call, per step by link type) delay posts (collective_spec.hpp, nccl_costs). Nothing here
// knows the fabric: only messages, deliveries and completions.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "models/collectives/collective_result.hpp"
#include "models/collectives/collective_spec.hpp"
#include "models/collectives/collective_timeline.hpp"
#include "models/collectives/collnet_run.hpp"
#include "models/collectives/nvls_tree_run.hpp"
#include "models/collectives/schedule.hpp"
#include "models/collectives/schedule_call.hpp"
#include "models/transport.hpp"
#include "sim/per_partition.hpp"
#include "sim/stable_vector.hpp"

namespace models {

class SharpAllReduce;
class CollectiveRunner;

// A call of `size` runs rank by rank (a schedule algorithm: schedule_call.hpp), not as one
// in-network step (SHARP, NVLS, NVLS-tree, CollNet) that starts and ends for every rank at once.
bool rank_paced(const CollectiveSpec& spec, int64_t size);

// The time from a call's start to its first posts (the kernel launch: the spec's
// launch_latency, else NCCL's base latency of the call's algorithm and protocol scaled by
// launch_scale when nccl_costs is on, else none).
sim::Time call_launch_latency(const CollectiveSpec& spec, int64_t size);

// One rank's events of a collective (its posts: the GPU kernel's or its proxy's hand-off of a
// message to the transport), run where the rank's GPU server or host is: its partition of a
// split run. Every dependency of a schedule's message is met at its sender (a delivery there,
// or the completion of one of its own messages), so a rank's work never waits on another
// partition's event of the same instant.
class RankAgent final : public sim::EventHandler {
 public:
  RankAgent(sim::Simulator& sim, CollectiveRunner& runner, uint32_t rank)
      : EventHandler(sim), runner_(runner), rank_(rank) {}
  void on_event(uint32_t kind, uint64_t arg) override;

 private:
  CollectiveRunner& runner_;
  uint32_t rank_;
};

class CollectiveRunner final : public CompletionListener,
                               public sim::EventHandler,
                               public sim::RankShare {
 public:
  CollectiveRunner(Context& ctx, Transport& transport, CollectiveSpec spec, uint32_t index,
                   uint64_t seed);
  // Schedules the first size at the spec's start.
  void start();
  // Listens to the transport without scheduling anything: for run_one.
  void attach() { transport_.add_listener(this); }
  // Runs one all-reduce (the spec's op) of `size` bytes from `start` (default now; a caller
  // acting on the end of another call passes that end, results().back().end, which in a split
  // run may be later than the event that found it); `done` hears of its end. Its row joins
  // results(). A call of a schedule algorithm may be asked for while earlier ones run (when
  // rank_paced): each rank starts it once it has ended those (schedule_call.hpp); `done` is
  // called in the order of the calls. Asked for from a partition's event, its ranks post after
  // the launch latency at a boundary event (they are every partition's), so a split run needs
  // that latency to be at least the window; asked for at a boundary, no such need.
  void run_one(int64_t size, std::function<void()> done) {
    run_one(size, std::move(done), ctx_.sim.now());
  }
  void run_one(int64_t size, std::function<void()> done, sim::Time start, bool boundary = false);
  // A call of `size` (a schedule algorithm's: rank_paced) that each rank joins when its own
  // program reaches it (join), as a GPU runs a collective when its stream reaches the kernel:
  // asked for ahead of the joins, at a boundary event or in a run of one list. Each rank
  // starts it once it has ended the calls before and joined; `rank_done` hears, where the
  // rank is, when its own part is over (a Chakra rank's collective node). Calls asked for
  // with run_one after it need no join: each rank runs them in turn after it (a training
  // step's later gradient buckets).
  void run_gated(int64_t size, std::function<void()> done, sim::Time start,
                 std::function<void(uint32_t rank)> rank_done = {});
  // `rank` reaches the gated call it waits for: now, where the rank is.
  void join(uint32_t rank);
  // Builds, before the run, the in-network group (SHARP tree, NVLS group) a call of `size`
  // runs on, if any: a call asked for by a partition's event of a split run may not build
  // handlers (Simulator::building_partition), and finds it built.
  void prepare_in_network(int64_t size);
  // Asks for its timeline tracks now, under a run's `--timeline` (else does nothing): a
  // timeline numbers tracks in the order they are asked for, so a runner whose calls are asked
  // for by a partition's events asks between windows, in an order no thread decides.
  void prepare_timeline() { begin_timeline(); }
  // Its calls are asked for only by events of its own partition (a tensor-parallel group's, by
  // its replica's program), and every rank is there: over several processes it runs in that
  // partition's process alone, as on threads — no boundary event, nothing told to the others,
  // whose copies stay idle. False (and nothing changes) when its ranks are not all there.
  bool run_in_own_partition();
  bool rank_paced(int64_t size) const { return models::rank_paced(spec_, size); }
  bool done() const { return done_.load(std::memory_order_acquire); }
  // When its last call ended (the start time before any).
  sim::Time finished_at() const { return results_.empty() ? spec_.start : results_.back().end; }
  // The share of its work done, 0..1: bytes of the calls finished, and of the call under way
  // the share of its messages complete, over the bytes of every call (sizes x iterations).
  double work_done() const;
  const CollectiveSpec& spec() const { return spec_; }
  const std::vector<CollectiveResult>& results() const { return results_; }
  // Where algorithms "sharp" (an InfiniBand fabric's in-network reduction) and
  // "nvls" (a GPU server's NVSwitch) run (in_network_run.cpp).
  void set_sharp(SharpAllReduce* sharp) { sharp_ = sharp; }
  // Called once, when the last size has finished.
  void set_on_done(std::function<void()> fn) { on_done_ = std::move(fn); }
  // The timeline group its spans go to (default "collective <index>: <op>").
  void set_timeline_process(std::string name) { timeline_process_ = std::move(name); }

  void on_flow_complete(uint32_t flow) override;
  void on_flow_delivered(uint32_t flow) override;
  void on_event(uint32_t kind, uint64_t arg) override;
  void on_rank_event(uint32_t rank, uint32_t kind, uint64_t arg);  // a RankAgent's
  // A run over several processes (rank_calls_processes.cpp): each process runs its own ranks;
  // between windows they tell each other which ranks ended which calls (when, from which
  // start, with what data sent) and, once a process's ranks have all ended a row, what its
  // partitions added to the row; every process then ends the rows every rank has ended, in
  // the same order, at the same boundary.
  void pack_share(sim::Bytes& out) override;
  void take_share(sim::ByteReader& in, uint32_t rank) override;
  void shares_taken() override;
  bool share_pending() const override;

 private:
  // kBegin, kNextSize, kLaunched (an in-network call's, or iteration's, first posts) and
  // kLaunchCall (the first posts of a schedule call's ranks that were idle when it was asked
  // for) run between windows (Simulator::at_boundary): they act on every rank. kPost,
  // kNvlsTreePost, kRankLaunch, kRankLaunchAlone and kInNetworkStart are a rank's (RankAgent),
  // where its GPU is.
  enum Kind : uint32_t {
    kBegin = 0,
    kPost = 1,
    kLaunched = 2,
    kNvlsTreePost = 3,
    kNextSize = 4,
    kRankLaunch = 5,
    kLaunchCall = 6,
    // Over processes: a rank's launch that kLaunchCall, or the call's release, does for every
    // rank at once in one process (not counted: rank_calls.cpp).
    kRankLaunchAlone = 7,
    // Over processes: a host joins an in-network all-reduce that kLaunched started for every
    // rank at once in one process (not counted: in_network_run.cpp), and a server's GPUs feed
    // CollNet's first chunks (collnet_run.cpp).
    kInNetworkStart = 8,
    kCollNetFeed = 9,
  };
  // Which of a message's successor edges an event releases: at its delivery those of the
  // messages its receiver sends, at its completion the others; a join releases all.
  enum class Release : uint8_t { Delivered, Completed, All };
  // A call begins at `start` (an iteration after the first: unused); `boundary`: called from
  // the runner's own boundary event at `start`.
  void begin_iteration(bool boundary, sim::Time start);
  // The row of a size starting at `start`, and what NCCL picks for it.
  CollectiveResult new_row(int64_t size, sim::Time start) const;
  CallSettings call_settings(const CollectiveResult& row) const;
  // An in-network call after its launch latency (in_network_run.cpp, nvls_tree_run.cpp,
  // collnet_run.cpp); it ends for every rank at once (finish_iteration).
  void launch_iteration();
  sim::Time launch_latency() const;  // of the in-network call under way
  // Software time before posting m.
  sim::Time step_cost(const CallSettings& s, const CollectiveMessage& m) const;
  // GPUDirect RDMA off: a network message's bytes stored into and loaded from host memory.
  sim::Time staging_time(int64_t bytes) const;
  void begin_timeline();  // `run --timeline`: its spans are recorded (made at the first call)
  // Schedule calls, rank by rank (rank_calls.cpp): a row of `header.size_bytes` (its spec
  // iterations) asked for at `start`; a rank starts call `number` at `at` (its launch after
  // the row's launch latency); ranks launch it (their first posts); one of its
  // messages is in (`rank` has one obligation less); its part is over; the row is over (rows
  // finish in order); calls every rank has ended, freed (between windows).
  void release_row(CollectiveResult header, int64_t sweep_index, std::function<void()> done,
                   sim::Time start, bool boundary, bool gated = false,
                   std::function<void(uint32_t)> rank_done = {});
  void start_rank(uint32_t rank, uint32_t number, sim::Time at);
  // start_rank, then its launch after the call's launch latency (an event of its agent).
  void start_and_launch(uint32_t rank, uint32_t number, sim::Time at);
  void launch_ranks(uint32_t number, const std::vector<uint32_t>& ranks);
  // launch_ranks from a boundary event: there, or over processes by an event of each rank's
  // agent (kRankLaunchAlone) at once.
  void launch_ranks_here(uint32_t number, const std::vector<uint32_t>& ranks);
  void settle(ScheduleCall& c, uint32_t rank);
  void end_rank(ScheduleCall& c, uint32_t rank);
  void finish_row(CallRow& row);
  void emit_row(CallRow& row);
  void free_ended_calls();
  ScheduleCall& call(uint32_t number) { return *calls_[number]; }
  // A flow's owner tag: (call, message) + 1, negative for a PXN relay leg.
  static int64_t flow_tag(uint32_t call, uint32_t message, bool relay);
  // The message path of a call (schedule_run.cpp).
  void ready(ScheduleCall& c, uint32_t message);  // all dependencies met
  // `message` is complete: releases its successors (joins at once, without recursion).
  void complete(ScheduleCall& c, uint32_t message);
  void drain();
  bool same_server(const CollectiveMessage& m) const;
  void post(ScheduleCall& c, uint32_t message);
  // The network leg of a message whose PXN relay leg (NVLink to the GPU next to the NIC) is done.
  void post_after_relay(ScheduleCall& c, uint32_t message);
  // Under NCCL's placement: the NIC a network message arrives at (the channel's entry rail on
  // the receiving server).
  int network_destination(const ScheduleCall& c, const CollectiveMessage& m) const;
  const ChannelLayout& channel_layout(const ScheduleCall& c, const CollectiveMessage& m) const;
  // A recycled transport flow of the collective's class between two endpoints, on the
  // connection whose source port is `sport`; not started.
  uint32_t add_message_flow(int src_host, int dst_host, int64_t bytes, uint16_t sport);
  // A transport flow for `message` (its last leg, or a PXN relay leg).
  void start_message_flow(ScheduleCall& c, uint32_t message, int src_host, int dst_host,
                          int64_t bytes, bool relay);
  void finish_iteration();  // an in-network iteration's
  // A row is over at `end`: the next size (a sweep's) or `done`.
  void after_row(sim::Time end, const std::function<void()>& done);
  RankAgent& agent(uint32_t rank) { return *agents_[rank]; }
  uint16_t connection_sport(uint32_t src, uint32_t dst, uint32_t channel) const;
  sim::Time step_latency(CollectiveProtocol p) const;
  // One iteration of algorithm sharp or nvls (in_network_run.cpp): a SharpAllReduce group
  // run whole; its counters (host i of the group = ranks[i]) over NVLink or the NICs.
  void run_sharp(int64_t size);
  void run_nvls(int64_t size);
  uint32_t sharp_group();
  uint32_t nvls_group();
  // An event of the runner's own at `t`, first among the events of its time, stamped by the
  // runner: a boundary event (it acts on every rank), or, when every rank is in the runner's
  // partition (local_), an event of that partition at the same place.
  void at_stamped(sim::Time t, uint32_t kind, uint64_t arg = 0);
  // `chunk_bytes` > 0: the call's chunk (else the group's).
  void run_in_network(int64_t size, uint32_t group, bool nvlink, int64_t chunk_bytes = 0);
  // Over processes: the `position`-th host of SHARP group `group` joins its all-reduce (an
  // agent's kInNetworkStart, where the host is).
  void start_in_network_host(uint32_t group, uint32_t position);
  // The agents' events that start, where each host is, the hosts of `group` of this process
  // (position i is rank ranks[i]'s), first among the events of this time there.
  void start_in_network_hosts(uint32_t group, const std::vector<uint32_t>& ranks);
  void add_in_network_counters(uint32_t group, const std::vector<uint32_t>& ranks, bool nvlink);
  // Algorithm nvls_tree (nvls_tree_run.cpp): one iteration; chunk j's tree (0 or 1, by its
  // rail); a step of chunk j at server position s got one of what it waits for; the chunk's
  // result at s; a message between two servers' heads; the transport's news of those
  // messages (false: not one of them); the end of the iteration once all is in.
  void run_nvls_tree(int64_t size);
  int nvls_tree_tree(int64_t chunk) const;
  void nvls_tree_step(int s, int64_t chunk);
  void nvls_tree_result(int s, int64_t chunk);
  void nvls_tree_send(int from, int to, int64_t chunk, bool up);
  void nvls_tree_post(uint32_t message);  // into NvlsTreeState::in_flight
  bool nvls_tree_delivered(uint32_t flow);
  bool nvls_tree_completed(uint32_t flow);
  void nvls_tree_finish();
  // Algorithms collnet_direct and collnet_chain (collnet_run.cpp): one iteration; chunk j's
  // bytes; rail h's data started towards its head at server position s as the window allows;
  // the head's server sum of chunk j handed to SHARP; its global result back at the head; an
  // NVLink message between two GPUs of server position s (`position`: the receiver's place
  // on a chain); the transport's news of those messages; the end once all is in.
  void run_collnet(int64_t size);
  int64_t collnet_chunk_bytes(int64_t j) const;
  void collnet_feed(int s, int h);
  void collnet_release(int s, int64_t j);
  void collnet_result(int s, int64_t j);
  void collnet_send(int s, int64_t j, uint32_t from, uint32_t to, bool up, int position);
  bool collnet_call() const {
    return collnet_ && (current_.algorithm == CollectiveAlgorithm::CollNetDirect ||
                        current_.algorithm == CollectiveAlgorithm::CollNetChain);
  }
  bool collnet_delivered(uint32_t flow);
  bool collnet_completed(uint32_t flow);
  void collnet_finish();
  void collnet_feed_server(int s);
  // Over processes, an in-network call that also sends messages (NVLS-tree's, CollNet's): what
  // the partitions' events add to it, told to every process, which ends the call once every
  // SHARP group is done and every message complete, all processes' (in_network_processes.cpp).
  enum InNetworkNoteKind : uint32_t { kPostedNetwork, kPostedNvlink, kDelivered, kCompleted };
  struct InNetworkNote {
    uint32_t kind = 0;  // InNetworkNoteKind
    uint32_t rank = 0;  // the sender's rank (posted) or the receiver's (delivered)
    int64_t bytes = 0;
    int64_t at_ps = 0;  // completed: when
  };
  void note_in_network(InNetworkNoteKind kind, uint32_t rank, int64_t bytes);
  // One of the call's SHARP groups is done: in one process, the call may end here; over
  // processes (every process at once, between windows) counted for shares_taken.
  void in_network_group_done();
  // A message of the call is complete, where its sender is.
  void in_network_message_complete();
  void finish_in_network();  // nvls_tree_finish or collnet_finish
  void take_in_network_notes(sim::ByteReader& in, bool own);
  std::vector<std::vector<InNetworkNote>> in_network_notes_;  // per partition, until packed
  bool in_network_running_ = false;                           // over processes: such a call runs
  int64_t in_network_open_ = 0;  // its messages posted and not complete, every process's
  size_t in_network_groups_done_ = 0;
  size_t in_network_groups_ = 0;
  // NVLS-tree over processes: a message as its flow's owner tag, read where it arrives.
  int64_t nvls_tree_tag(const NvlsTreeMessage& m) const;
  NvlsTreeMessage nvls_tree_message(int64_t tag) const;

  // A rank of this process (all of them but in a run over several processes).
  bool runs_here(uint32_t rank) const { return ctx_.sim.is_local(agents_[rank]->partition()); }

  Context& ctx_;
  Transport& transport_;
  CollectiveSpec spec_;
  uint32_t index_;
  uint64_t seed_;
  std::vector<int64_t> sizes_;
  std::vector<std::unique_ptr<RankAgent>> agents_;  // [rank]
  // Every rank's agent is in the runner's own partition (a group inside one GPU server, or a
  // run of one list): a call asked for by one of its events may launch its ranks with an
  // event of that partition rather than a boundary event.
  bool local_ = true;
  bool one_partition_ = true;  // local_ before a run over processes turned it off
  size_t size_index_ = 0;
  int iteration_ = 0;                                         // of the in-network call under way
  CollectiveProtocol protocol_ = CollectiveProtocol::Simple;  // of the in-network call
  // What each partition's ranks add to the in-network row while it runs: summed into it when
  // the iteration ends (its end: the latest completion of any partition).
  using Tally = CallTally;
  sim::PerPartition<Tally> tally_;
  // Schedule calls (schedule_call.hpp): rows and calls are added by one thread (between windows
  // or in a run of one list; rows_lock_ for a run_one asked for by a partition's event) and
  // never move; a call's state is freed once every rank has ended it.
  // At most 4 M rows and 16 M calls per runner: their tables (512 KiB each) stay small, as a
  // training step has a runner per tensor and data group.
  sim::StableVector<std::unique_ptr<CallRow>, 64, size_t{1} << 22> rows_;
  sim::StableVector<std::unique_ptr<ScheduleCall>, 256, size_t{1} << 24> calls_;
  std::vector<RankCursor> cursors_;  // [rank]
  std::mutex rows_lock_;             // rows' ends, in order
  size_t rows_emitted_ = 0;          // rows whose results are in results_
  size_t calls_freed_ = 0;           // calls before this one are freed
  std::atomic<int> rows_open_{0};    // rows released and not yet emitted
  void clear_tally();
  // The call has gone on until now, or until a SHARP group's last host had its result.
  void note_latest();
  void note_group_done_times(uint32_t group);
  // Messages whose successor edges (of the given kind) are to be released next.
  struct Released {
    ScheduleCall* call;
    uint32_t message;
    Release release;
  };
  sim::PerPartition<std::vector<Released>> released_;
  // A run over several processes: a rank's end of a call, told to every process (pack_share);
  // the rows every rank has ended, found as the others' ends are taken in.
  bool over_processes_ = false;
  struct RankEnd {
    uint32_t call = 0, rank = 0;
    int64_t end_ps = 0, start_ps = 0;  // the end; the row's earliest start seen here
    int64_t data_sent = 0;             // the rank's row data sent (its last call's end)
  };
  sim::PerPartition<std::vector<RankEnd>> rank_ends_;
  std::vector<CallRow*> rows_ended_;
  NcclLatencies nccl_;  // the in-network call's NCCL latency terms (when spec_.nccl_costs)
  // When each (rank, channel) may next post under a protocol's throughput (CallSettings).
  std::vector<sim::Time> channel_free_;
  sim::Time iteration_start_;
  CollectiveResult current_;
  std::vector<CollectiveResult> results_;
  std::atomic<bool> done_{false};
  std::function<void()> on_done_;
  std::string timeline_process_;
  std::unique_ptr<CollectiveTimeline> timeline_;  // only while a timeline is recorded
  SharpAllReduce* sharp_ = nullptr;
  std::unique_ptr<NvlsTreeState> nvls_tree_;  // from the first nvls_tree iteration on
  std::unique_ptr<CollNetState> collnet_;     // from the first collnet iteration on
};

}  // namespace models
