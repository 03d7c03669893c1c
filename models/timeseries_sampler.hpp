// Periodic samples of chosen ports (queue depth, throughput over the last interval) and chosen
// flows (payload delivered over the last interval, the sum of their QPs' rate limits). Keeps
// sampling while the run is still producing work.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/egress_port.hpp"
#include "models/transport.hpp"

namespace models {

struct PortSample {
  sim::Time time;
  uint32_t port = 0;         // index into the sampler's port list
  uint64_t queue_bytes = 0;  // all classes, wire bytes
  uint64_t tx_bytes = 0;     // wire bytes sent during the interval ending at `time`
};

struct FlowSample {
  sim::Time time;
  uint32_t flow = 0;             // index into the sampler's flow list
  uint64_t delivered_bytes = 0;  // payload delivered in order during the interval
  int64_t rate_limit_bps = 0;    // sum over its sending QPs of the rate limiter (0 = not sending)
};

class TimeseriesSampler final : public sim::EventHandler {
 public:
  TimeseriesSampler(Context& ctx, std::vector<const EgressPort*> ports, sim::Time interval)
      : EventHandler(ctx.sim),
        ctx_(ctx),
        ports_(std::move(ports)),
        interval_(interval),
        last_tx_(ports_.size(), 0) {}

  // Also sample these flows of `transport`.
  void add_flows(const Transport& transport, std::vector<uint32_t> flows) {
    transport_ = &transport;
    flows_ = std::move(flows);
    last_delivered_.assign(flows_.size(), 0);
  }

  // Samples are boundary events (sim/simulator.hpp): the state before anything due then.
  void start() { ctx_.sim.at_boundary(sim::Time(0), this, 0); }
  // Stop after the next sample (the run is finishing).
  void stop() { stopped_ = true; }
  const std::vector<PortSample>& samples() const { return samples_; }
  const std::vector<FlowSample>& flow_samples() const { return flow_samples_; }
  sim::Time interval() const { return interval_; }
  // Its results, gathered from the processes that ran it (sim/result_archive.hpp): every
  // process samples at the same times, each port's columns right where the port's partition
  // runs, a flow's delivered bytes where its receiver's, its rate where its sender's.
  void archive_results(sim::ResultArchive& a, const std::vector<uint32_t>& port_partition,
                       const std::vector<uint32_t>& flow_src_partition,
                       const std::vector<uint32_t>& flow_dst_partition);

  // The run has ended: a last sample at the end time covers the partial interval since the
  // previous one. (A run that stops when the workload is done ends between two samples; without
  // it, the bytes sent after the last sample would be missing from the series.)
  void finish() {
    const bool any = !samples_.empty() || !flow_samples_.empty();
    const sim::Time last = !samples_.empty()        ? samples_.back().time
                           : !flow_samples_.empty() ? flow_samples_.back().time
                                                    : sim::Time(0);
    if (!any || last < ctx_.sim.now()) take(ctx_.sim.now());
  }

  void on_event(uint32_t, uint64_t) override {
    take(ctx_.sim.now());
    if (!stopped_) ctx_.sim.after_boundary(interval_, this, 0);
  }

 private:
  void take(sim::Time now) {
    for (uint32_t i = 0; i < ports_.size(); ++i) {
      const uint64_t tx = ports_[i]->stats().wire_bytes;
      samples_.push_back({now, i, ports_[i]->total_queue_bytes(), tx - last_tx_[i]});
      last_tx_[i] = tx;
    }
    for (uint32_t i = 0; i < flows_.size(); ++i) {
      const FlowState& f = transport_->flow(flows_[i]);
      uint64_t delivered = 0;
      int64_t rate = 0;
      for (uint32_t k = 0; k < f.qp_count; ++k) {
        const QueuePair& qp = transport_->qp(f.first_qp + k);
        delivered += qp.delivered_bytes;
        if (qp.posted && !qp.done) rate += qp.rate_bps;
      }
      flow_samples_.push_back({now, i, delivered - last_delivered_[i], rate});
      last_delivered_[i] = delivered;
    }
  }

  Context& ctx_;
  std::vector<const EgressPort*> ports_;
  sim::Time interval_;
  std::vector<uint64_t> last_tx_;
  std::vector<PortSample> samples_;
  const Transport* transport_ = nullptr;
  std::vector<uint32_t> flows_;
  std::vector<uint64_t> last_delivered_;
  std::vector<FlowSample> flow_samples_;
  bool stopped_ = false;
};

}  // namespace models
