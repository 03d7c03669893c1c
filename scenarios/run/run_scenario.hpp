// Runs a loaded scenario: builds the network, injects the workload, simulates to the stop
// condition, checks conservation, and gathers results for the output files.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/collectives/collective_runner.hpp"
#include "models/ib/ib_cc.hpp"
#include "models/nic.hpp"
#include "models/roce/dcqcn.hpp"
#include "models/roce/pfc_ingress.hpp"
#include "models/timeline.hpp"
#include "models/timeseries_sampler.hpp"
#include "models/training/training_step.hpp"
#include "models/workloads/chakra_run.hpp"
#include "scenarios/loader/scenario.hpp"

namespace models {
struct Network;  // models/network.hpp
}  // namespace models

namespace scen {

struct FlowResult {
  uint32_t id = 0;
  std::string tag;
  std::string src, dst;
  int64_t bytes = 0;
  int priority = 0;
  int qps = 1;
  sim::Time start, finish, fct, ideal_fct;
  bool completed = false;
  uint64_t retransmitted_packets = 0;
  uint64_t timeouts = 0;
};

struct LinkResult {
  std::string from, to;
  int link = 0, direction = 0, from_port = 0, to_port = 0;
  int64_t rate_bps = 0;
  uint64_t wire_bytes = 0, packets = 0, lost_packets = 0, tail_drops = 0, max_queue_bytes = 0;
  sim::Time busy, stalled;
  bool up = true;
  uint64_t pause_frames_sent = 0;      // PFC frames (pause, refresh, resume) sent on this direction
  uint64_t pause_frames_received = 0;  // PFC frames that held the sending port
  sim::Time paused;                    // time classes of the sending port were held by PFC
  uint64_t ecn_marks = 0;              // packets marked CE at this direction's sending port
  // Per traffic class at the sending port (classes.csv): packets, wire bytes, peak queue; up to
  // kMaxClasses (InfiniBand VLs), the ECN and PFC ones 8 (Ethernet priorities).
  std::array<uint64_t, models::kMaxClasses> class_packets{};
  std::array<uint64_t, models::kMaxClasses> class_wire_bytes{};
  std::array<uint64_t, models::kMaxClasses> class_max_queue_bytes{};
  std::array<uint64_t, models::kMaxClasses> class_tail_drops{};
  std::array<uint64_t, models::kPriorities> class_ecn_marks{};
  // PFC per class: frames that held the sending port and how long; frames the sending node
  // sent on this direction (pause + refresh; resume) and its XOFF decisions; the receiving
  // switch's peak ingress bytes from this link.
  std::array<uint64_t, models::kPriorities> class_pause_frames_received{};
  std::array<sim::Time, models::kPriorities> class_paused{};
  std::array<uint64_t, models::kPriorities> class_pause_frames_sent{};
  std::array<uint64_t, models::kPriorities> class_resume_frames_sent{};
  std::array<uint64_t, models::kPriorities> class_xoff_transitions{};
  std::array<int64_t, models::kMaxClasses> class_peak_ingress_bytes{};
  // InfiniBand: time the sending port had packets of some VL waiting for credit (summed over
  // VLs), and the number of such stalls.
  sim::Time credit_stalled;
  uint64_t credit_stalls = 0;
  std::array<sim::Time, models::kMaxClasses> class_credit_stalled{};  // per VL (classes.csv)
  // InfiniBand congestion control: packets the sending (switch) port marked FECN, per VL.
  uint64_t fecn_marks = 0;
  std::array<uint64_t, models::kMaxClasses> class_fecn_marks{};
};

// Something the user should know of a finished run (run_warnings.hpp): a stable code and a
// sentence.
struct RunWarning {
  std::string code;
  std::string message;
};

struct RunOutcome {
  sim::StopReason reason = sim::StopReason::Idle;
  // A process of a run over several but the first: its results were gathered into the first
  // process's outcome, which writes them; this one holds only the run's end (reason, time,
  // events).
  bool results_elsewhere = false;
  sim::Time end_time;
  double wall_seconds = 0;
  uint64_t events = 0;
  uint64_t packet_hops = 0;
  int64_t peak_rss_kb = 0;
  int64_t huge_pages_kb = 0;          // of the process's memory at the run's end, in huge pages
  uint64_t packet_pool_capacity = 0;  // packet slots allocated (each partition grows its own)
  std::vector<FlowResult> flows;
  std::vector<LinkResult> links;
  std::vector<std::string> sampled_ports;
  std::vector<models::PortSample> samples;
  std::vector<uint32_t> sampled_flows;  // flow ids, in the sampler's order
  std::vector<models::FlowSample> flow_samples;
  std::vector<models::RateChange> rate_changes;  // DCQCN rate limiter changes of sampled flows
  std::vector<models::PfcEvent> pfc_events;
  std::vector<models::CreditStall> credit_stalls;  // InfiniBand (credits.csv)
  // InfiniBand congestion control: CCTI changes of the sampled flows' QPs (ib_cc.csv).
  std::vector<models::CctiChange> ccti_changes;
  std::vector<std::string> node_names;  // for rendering events
  std::vector<models::NicStats> nics;   // [host number] (nics.csv)
  std::vector<std::string> host_names;  // [host number]
  Json results;                         // headline results (deterministic)
  Json deadlocks = Json::array();       // PFC deadlocks found (deadlocks.json)
  Json counters;                        // all counters (deterministic)
  // One row per collective size (collectives.csv).
  std::vector<models::CollectiveResult> collectives;
  // Training steps, and every bucket's all-reduce.
  std::vector<models::TrainingStepResult> training_steps;
  std::vector<models::CollectiveResult> training_all_reduces;
  std::vector<models::ChakraRankResult> chakra_ranks;        // per rank of a Chakra workload
  std::vector<models::CollectiveResult> chakra_collectives;  // its collectives, as they ended
  std::vector<RunWarning> warnings;  // summary.json's `warnings`, also logged
  // `run --timeline`: what was recorded (null when not asked for).
  std::shared_ptr<const models::TimelineRecorder> timeline;
};

struct RunOptions {
  bool progress = false;             // a progress line on stderr (terminal only; the CLI decides)
  models::TimelineOptions timeline;  // spans to record (run_timeline.hpp); off by default
  // --max-memory (bytes; 0 = the machine's memory): the estimate is checked before the network
  // is built and the resident size while it runs (memory_estimate.hpp, memory_guard.hpp).
  int64_t max_memory_bytes = 0;
  // --partitions N: the fabric split into N partitions (topologies/partition.hpp), each with
  // its own event list, run in windows of the lookahead; outputs identical to one list's.
  // 1 with threads above 1: eight partitions per thread.
  int partitions = 1;
  // --threads N: the partitions' windows run on N threads (0: as many as the machine has
  // cores, or 1 for a scenario a split run cannot run yet); outputs identical at every count.
  int threads = 1;
  // A run over several processes (MPI ranks, sim/rank_exchange.hpp): this process's exchange.
  // Each process builds the whole fabric and runs its block of the partitions (at least one a
  // rank: --partitions defaults to 8 a thread a rank); what a split run refuses is refused
  // (rank_blockers). The simulation runs as in one process, each process holding its partitions'
  // state, and finish gathers every process's results into the first (gather_results.hpp), whose
  // outcome is the single process's; the others' hold the run's end
  // (RunOutcome::results_elsewhere).
  sim::RankExchange* ranks = nullptr;
};

// A run in progress: the network built, the scenario's workload started; advanced at once
// (run_scenario) or in steps (the library API, scenarios/api, which also posts messages and
// schedules callbacks through simulator() and network()); its results gathered once, at the
// end. Holds `s` by reference: the scenario outlives the run.
class ScenarioRun {
 public:
  // Throws InputError (before simulating) for a timeline port that does not exist, and
  // MemoryError for a scenario whose memory estimate is beyond options.max_memory_bytes.
  ScenarioRun(const Scenario& s, const RunOptions& options = {});
  ~ScenarioRun();
  ScenarioRun(const ScenarioRun&) = delete;
  ScenarioRun& operator=(const ScenarioRun&) = delete;

  const Scenario& scenario() const;
  sim::Simulator& simulator();
  const sim::Simulator& simulator() const;
  models::Network& network();
  const models::Network& network() const;
  // Runs events until none is left, the next is later than `limit`, or something asks the run
  // to stop (the workload done when stop.until is "workload-done", a deadlock when stop.on_deadlock
  // is "stop"); may be called again to go on.
  sim::StopReason advance(sim::Time limit);
  // Every message, collective and training step posted so far has completed.
  bool workload_done() const;
  // The results, as of now; the run cannot advance afterwards. Throws std::logic_error when
  // an invariant (conservation of packets or bytes) is broken.
  RunOutcome finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Throws std::logic_error when an invariant (conservation of packets or bytes) is broken, and
// InputError (before simulating) for a timeline port that does not exist.
RunOutcome run_scenario(const Scenario& s, const RunOptions& options = {});

}  // namespace scen
