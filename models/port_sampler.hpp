// Periodic samples of chosen ports: queue depth and throughput over the last interval.
// Keeps sampling while `keep_going` says the run is still producing work.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/egress_port.hpp"

namespace models {

struct PortSample {
  sim::Time time;
  uint32_t port = 0;         // index into the sampler's port list
  uint64_t queue_bytes = 0;  // all classes, wire bytes
  uint64_t tx_bytes = 0;     // wire bytes sent during the interval ending at `time`
};

class PortSampler final : public sim::EventHandler {
 public:
  PortSampler(Context& ctx, std::vector<const EgressPort*> ports, sim::Time interval)
      : ctx_(ctx), ports_(std::move(ports)), interval_(interval), last_tx_(ports_.size(), 0) {}

  void start() { ctx_.sim.at(sim::Time(0), this, 0); }
  // Stop after the next sample (the run is finishing).
  void stop() { stopped_ = true; }
  const std::vector<PortSample>& samples() const { return samples_; }
  sim::Time interval() const { return interval_; }

  // The run has ended: a last sample at the end time covers the partial interval since the
  // previous one. (A run that stops when the workload is done ends between two samples; without
  // it, the bytes sent after the last sample would be missing from the series.)
  void finish() {
    if (samples_.empty() || samples_.back().time < ctx_.sim.now()) take(ctx_.sim.now());
  }

  void on_event(uint32_t, uint64_t) override {
    take(ctx_.sim.now());
    if (!stopped_) ctx_.sim.after(interval_, this, 0);
  }

 private:
  void take(sim::Time now) {
    for (uint32_t i = 0; i < ports_.size(); ++i) {
      const uint64_t tx = ports_[i]->stats().wire_bytes;
      samples_.push_back({now, i, ports_[i]->total_queue_bytes(), tx - last_tx_[i]});
      last_tx_[i] = tx;
    }
  }

  Context& ctx_;
  std::vector<const EgressPort*> ports_;
  sim::Time interval_;
  std::vector<uint64_t> last_tx_;
  std::vector<PortSample> samples_;
  bool stopped_ = false;
};

}  // namespace models
