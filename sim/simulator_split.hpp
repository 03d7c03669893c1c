// The state of a split run that sim/simulator.cpp and sim/simulator_ranks.cpp share: its
// partitions' lanes, mailboxes and windows (private to the simulator: included by those two).
#pragma once

#include <array>
#include <cstdint>
#include <exception>
#include <memory>
#include <vector>

#include "sim/simulator.hpp"

namespace sim {

// An event for another partition's handler, at the place it took where it was pushed.
struct Simulator::Message {
  Place place;
  EventHandler* target;
  uint64_t arg;
  uint32_t kind;
};

// A partition while the windows run: its clock and list, and what its events left for the
// others — events for their handlers (by destination), boundary events, a stop. Each lane is
// written by the one thread running it. The outboxes come in two sets, a window's and the one
// before: a partition's thread moves what the window before left for it into its own list as it
// takes the partition (so no thread empties every mailbox between windows while the others
// wait), while this window's events fill the other set.
struct Simulator::Lane : Running {
  std::array<std::vector<std::vector<Message>>, 2> outbox;  // [set][partition]
  Time outbox_due = Time::max();                            // the earliest due in this window's set
  std::vector<Message> boundary_out;
  uint64_t events = 0;
  Time stop_at = Time::max();
  bool stop_requested = false;
  Time latest;  // its latest event's time
};

struct Simulator::Split {
  std::vector<std::unique_ptr<Scheduler>> lists;  // partitions 1 .. N-1 (0: scheduler_)
  Scheduler boundary;                             // at_boundary's events
  std::vector<Lane> lanes;                        // [partition]
  Running serial;                                 // between windows: the boundary events' clock
  Time window;                                    // a window's length: lookahead, grace
  Time window_end = Time::max();                  // of the window running (exclusive)
  Time latest;                                    // the latest event executed (the clock's end)
  uint32_t set = 0;                               // the outbox set the running window fills
  uint64_t base = 0;                              // events executed before this run
  uint64_t serial_count = 0;                      // boundary events executed in this run
  uint64_t next_progress = 0;
  // A run over several processes (set_ranks): what this one runs, and how its run ended.
  RankExchange* ranks = nullptr;
  std::vector<uint32_t> rank_of;  // [partition]
  std::vector<uint32_t> local;    // this process's partitions, ascending (all unless set_ranks)
  std::exception_ptr rank_error;  // this process's failure between windows
  bool failed_elsewhere = false;  // another process failed
  bool idle = false;              // no event was left anywhere
};

}  // namespace sim
