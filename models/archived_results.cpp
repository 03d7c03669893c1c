// What each component holds of a run's results — what the result collectors read once the run
// is over (scenarios/run/*_results.cpp) — listed once for both directions of the gather of a
// run over several processes (sim/result_archive.hpp, scenarios/run/gather_results.cpp). A
// component lists its own counts; which process wrote it is the walk's to say.
#include <stdexcept>

#include "models/cc/ack_rate_control.hpp"
#include "models/egress_port.hpp"
#include "models/ib/credit_gate.hpp"
#include "models/ib/credit_return.hpp"
#include "models/ib/fecn_marker.hpp"
#include "models/ib/ib_cc.hpp"
#include "models/link.hpp"
#include "models/nic.hpp"
#include "models/nic_rx_buffer.hpp"
#include "models/roce/dcqcn.hpp"
#include "models/roce/ecn_marker.hpp"
#include "models/roce/pause_storm.hpp"
#include "models/roce/pfc_gate.hpp"
#include "models/roce/pfc_ingress.hpp"
#include "models/roce/pfc_sender.hpp"
#include "models/sharp/aggregation_engine.hpp"
#include "models/sharp/sharp_allreduce.hpp"
#include "models/switch.hpp"
#include "models/switch_buffer.hpp"
#include "models/tcp/tcp_stack.hpp"
#include "models/timeseries_sampler.hpp"
#include "models/transport.hpp"
#include "sim/result_archive.hpp"

namespace models {

void EgressPort::archive_results(sim::ResultArchive& a) {
  a(sent_packets_, sent_wire_bytes_, busy_time_, tail_drops_, discarded_packets_, discarded_bytes_);
  // A stall still on at the end is counted up to then by finish_accounting.
  a(stalled_, stalled_since_, stalled_time_);
  a(total_queue_bytes_);  // what a sample at the end reads
  for (int c = 0; c < class_count_; ++c) {
    ClassState& s = cls(c);
    a(s.max_bytes, s.packets, s.wire_bytes, s.tail_drops);
  }
}

void Link::archive_results(sim::ResultArchive& a) {
  a(stats_, up_);
}

void Nic::archive_results(sim::ResultArchive& a) {
  a(stats_);
  rx_.archive_results(a);
}

void NicRxBuffer::archive_results(sim::ResultArchive& a) {
  a(stats_);
  if (pfc_) pfc_->archive_results(a);
}

void PfcSender::archive_results(sim::ResultArchive& a) {
  a(stats_, xoff_, xoff_since_);
}

void Switch::archive_results(sim::ResultArchive& a) {
  a(stats_, exhaustions_);
  buffer_.archive_results(a);
}

void SwitchBuffer::archive_results(sim::ResultArchive& a) {
  a(peak_used_, peak_shared_used_, peak_headroom_used_);
  for (IngressSlot& in : ingress_) a(in.peak_ingress_bytes, in.peak_headroom_bytes);
}

void PfcGate::archive_results(sim::ResultArchive& a) {
  a(hold_, stats_);
}

void PfcIngress::archive_results(sim::ResultArchive& a) {
  for (auto& port : ports_) port->sender.archive_results(a);
}

void EcnMarker::archive_results(sim::ResultArchive& a) {
  a(marks_, marks_by_priority_);
}

void IbCreditGate::archive_results(sim::ResultArchive& a) {
  a(vls_, flow_control_received_);
}

void IbCreditReturn::archive_results(sim::ResultArchive& a) {
  a(slots_, flow_control_sent_);
}

void FecnMarker::archive_results(sim::ResultArchive& a) {
  a(marks_, victim_skips_);
}

void IbCongestionControl::archive_results(uint32_t host, sim::ResultArchive& a) {
  a(stats_[host]);
}

void Dcqcn::archive_results(sim::ResultArchive& a) {
  a.partitions(stats_);
}

void AckRateControl::archive_results(sim::ResultArchive& a) {
  a.partitions(stats_);
}

void AggregationEngine::archive_results(sim::ResultArchive& a) {
  a(stats_);
}

void SharpAllReduce::archive_results(sim::ResultArchive& a) {
  a.partitions(results_received_);
  for (const auto& e : engines_) {
    if (a.holds(e->partition())) e->archive_results(a);
  }
}

void TcpStack::archive_results(sim::ResultArchive& a) {
  a.partitions(stats_);
  a.partitions(held_);
}

void PauseStorm::archive_results(sim::ResultArchive& a) {
  a(frames_sent_);
}

void TimeseriesSampler::archive_results(sim::ResultArchive& a,
                                        const std::vector<uint32_t>& port_partition,
                                        const std::vector<uint32_t>& flow_src_partition,
                                        const std::vector<uint32_t>& flow_dst_partition) {
  uint64_t port_rows = samples_.size(), flow_rows = flow_samples_.size();
  a(port_rows, flow_rows);
  if (!a.packing() && (port_rows != samples_.size() || flow_rows != flow_samples_.size())) {
    throw std::logic_error("the processes of a run sampled different times");
  }
  for (uint32_t i = 0; i < ports_.size(); ++i) {
    if (a.holds(port_partition[i])) a(last_tx_[i]);
  }
  for (PortSample& row : samples_) {
    if (a.holds(port_partition[row.port])) a(row.queue_bytes, row.tx_bytes);
  }
  for (uint32_t i = 0; i < flows_.size(); ++i) {
    if (a.holds(flow_dst_partition[i])) a(last_delivered_[i]);
  }
  for (FlowSample& row : flow_samples_) {
    if (a.holds(flow_dst_partition[row.flow])) a(row.delivered_bytes);
    if (a.holds(flow_src_partition[row.flow])) a(row.rate_limit_bps);
  }
}

void Transport::archive_results(sim::ResultArchive& a) {
  // A QP's requester side is written where its sender is, its responder side where its
  // receiver is; a flow completes at its sender, and is delivered at its receiver.
  for (size_t i = 0; i < qps_.size(); ++i) {
    QueuePair& q = qps_[i];
    if (a.holds(partition_of(q.src_host))) {
      a(q.snd_nxt, q.snd_una, q.posted, q.done, q.finish, q.retransmitted_packets, q.timeouts,
        q.nacks_received, q.rate_bps);
    }
    if (a.holds(partition_of(q.dst_host))) {
      a(q.expected_psn, q.delivered_bytes, q.delivered_at, q.delivered, q.duplicate_packets,
        q.out_of_order_packets);
    }
  }
  for (size_t i = 0; i < flows_.size(); ++i) {
    FlowState& f = flows_[i];
    if (a.holds(partition_of(f.spec.src_host))) a(f.done, f.finish, f.qps_remaining);
    if (a.holds(partition_of(f.spec.dst_host))) a(f.qps_undelivered);
  }
  for (uint32_t p = 0; p < retired_.size(); ++p) {
    if (a.holds(p)) a(retired_[p].count, retired_[p].totals);
  }
  if (!a.packing()) {
    size_t done = 0;
    for (size_t i = 0; i < flows_.size(); ++i) done += flows_[i].done ? 1 : 0;
    flows_done_.store(done, std::memory_order_release);
  }
}

}  // namespace models
