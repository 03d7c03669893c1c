// The two ways a replay moves a rank's flows (replay.cpp does the rest: MPI, the scenario,
// gathering, flows.csv). Both start at the rank's time 0 (taken right after a barrier), send
// each flow at its start time and return, per flow this rank sends, when its sender learned
// that the last byte had arrived: the receiver's acknowledgement over tcp, the completion of
// the last RDMA work request over verbs (which an RC queue pair reports when the responder's
// ACK arrives). That is the moment the simulator's FCT ends (the last PSN acknowledged), and
// it is read on the sender's own clock, so hosts need no synchronised clocks.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "scenarios/loader/scenario.hpp"
#include "tools/probe/replay.hpp"

namespace probe {

struct Completion {
  int64_t flow = -1;
  int64_t finish_ps = 0;  // since the common start
  int64_t completed = 0;
};

// The first error any thread met (threads report here; the rank prints it once).
class FirstError {
 public:
  void set(const std::string& e) {
    std::lock_guard<std::mutex> g(m_);
    if (!failed_) text_ = e;
    failed_ = true;
  }
  bool failed() const {
    std::lock_guard<std::mutex> g(m_);
    return failed_;
  }
  std::string text() const {
    std::lock_guard<std::mutex> g(m_);
    return text_;
  }

 private:
  mutable std::mutex m_;
  bool failed_ = false;
  std::string text_;
};

// Each needs MPI initialised; collective over MPI_COMM_WORLD (every rank calls it).
std::vector<Completion> replay_tcp(const scen::Scenario& s, int rank, int size,
                                   const ReplayOptions& o, FirstError& err);
std::vector<Completion> replay_verbs(const scen::Scenario& s, int rank, int size,
                                     const ReplayOptions& o, FirstError& err);

}  // namespace probe
