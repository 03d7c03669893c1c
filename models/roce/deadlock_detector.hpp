// Run-time PFC deadlock detection. A switch ingress buffer (port p, priority c) waits on the
// next switch's ingress buffer when packets that entered on p sit in an egress queue of class c
// that the next switch has paused. A deadlock is a cycle of such waits whose egress queues
// have all been paused continuously, with nothing dequeued, for at least `window`: it formed
// when its last member paused (Hu et al., HotNets 2016; Shpiner et al., "Unlocking Credit
// Loop Deadlock", HotNets 2016). A pause tree (incast) has no cycle and is never reported.
// The wait-for graph is built from the queues every `interval`, not per packet: the packet
// path pays nothing, and a deadlock is reported at most window + interval after it forms.
#pragma once

#include <cstdint>
#include <set>
#include <vector>

#include "models/context.hpp"
#include "models/egress_port.hpp"
#include "models/roce/pfc_gate.hpp"

namespace models {

class Transport;

struct DeadlockParams {
  bool enabled = true;             // with PFC on
  sim::Time window{200'000'000};   // 200 us of continuous pause, nothing dequeued
  sim::Time interval{50'000'000};  // how often the wait-for graph is examined
  bool stop_run = true;            // stop the run at the first deadlock
};

// A member of a cycle: the ingress buffer (switch node, port, priority) that waits.
struct DeadlockMember {
  int node = -1;
  int port = -1;
  int priority = 0;
};

struct DeadlockEvent {
  sim::Time formed;                   // when the last member's egress queue was paused
  sim::Time detected;                 // when the detector saw the cycle
  std::vector<DeadlockMember> cycle;  // waiting order, from the smallest (node, port)
  std::vector<uint32_t> flows;        // flows with packets frozen in the cycle's queues
  uint64_t frozen_bytes = 0;          // wire bytes queued in the cycle's egress queues
};

class DeadlockDetector final : public sim::EventHandler {
 public:
  // One watched egress queue owner: a switch port, its gate, and where its link leads.
  struct Port {
    int node = -1;  // the switch this egress port belongs to
    int port = -1;
    int peer_node = -1;  // the node at the other end (a switch: its ingress waits)
    int peer_port = -1;
    const EgressPort* egress = nullptr;
    PfcGate* gate = nullptr;
    uint32_t partition = 0;  // of its switch (a run over processes: where it is looked at)
  };

  DeadlockDetector(Context& ctx, const DeadlockParams& params, const Transport& transport,
                   std::vector<Port> ports, uint8_t lossless_priorities);

  // Its looks are boundary events (sim/simulator.hpp): it reads every switch at once. In a run
  // over several processes every process looks at its own switches' queues and they swap what
  // they saw (a collective: boundary events run in every process, in the same order), so that
  // each examines the whole fabric's wait-for graph and finds the same cycles.
  void start() { ctx_.sim.after_boundary(params_.interval, this, 0); }
  const std::vector<DeadlockEvent>& events() const { return events_; }
  // Looks that scanned the watched queues (a look with no packet in the network and no queue
  // seen held before is skipped: it could change nothing).
  uint64_t scans() const { return scans_; }
  void on_event(uint32_t kind, uint64_t arg) override;

 private:
  // What one look saw of a watched (port, lossless class) queue: all the graph and a report
  // read of it.
  struct QueueLook {
    uint64_t sent = 0;  // packets the class has sent
    bool held = false;  // paused with packets queued
    // Held for a whole window: its bytes, since when its pause runs, the ingress ports its
    // packets came in on and the flows of its data packets (each ascending, once).
    uint64_t bytes = 0;
    sim::Time paused_since;
    std::vector<int> in_ports;
    std::vector<uint32_t> flows;
  };
  void examine();
  // Fills looks_ for the watched queues of this process (all, in a run of one), then, over
  // processes, swaps them with the others'.
  void look();
  void look_at(size_t port, int c, QueueLook& q) const;
  void swap_looks(sim::RankExchange& ranks);

  Context& ctx_;
  DeadlockParams params_;
  const Transport& transport_;
  std::vector<Port> ports_;
  uint8_t lossless_;
  // Per (watched port, class): packets sent at the last look, and since when it has been seen
  // paused with packets queued and that count unchanged.
  std::vector<QueueLook> looks_;  // [watched port * kPriorities + class], the latest look
  std::vector<uint64_t> last_sent_;
  std::vector<sim::Time> stuck_since_;
  std::vector<uint8_t> stuck_;
  bool any_stuck_ = false;  // some stuck_ entry is set
  uint64_t scans_ = 0;
  std::set<std::vector<int>> reported_;  // cycles already reported (as member keys)
  std::vector<DeadlockEvent> events_;
};

}  // namespace models
