#include "models/nic_rx_buffer.hpp"

#include <algorithm>

#include "models/shared_dma_link.hpp"
#include "models/switch_buffer.hpp"

namespace models {

void NicRxBuffer::enable_pfc(EgressPort& port, uint8_t lossless, uint32_t quanta, int node,
                             uint32_t host, PartitionLog<PfcEvent>* log) {
  pfc_lossless_ = lossless;
  const PfcHeldBytes& held = *this;  // the buffer's bytes, for the refreshes' log
  pfc_ =
      std::make_unique<PfcSender>(ctx_, port, quanta, held, node, 0, static_cast<int>(host), log);
}

void NicRxBuffer::arrive(PacketHandle h) {
  const Packet& p = ctx_.pool[h];
  if (params_.rx_buffer_bytes > 0 && bytes_ + p.wire_bytes > params_.rx_buffer_bytes) {
    ++stats_.overflow_drops;  // counted, never silent: go-back-N recovers it end to end
    ctx_.pool.release(h);
    return;
  }
  const uint8_t prio = p.priority;
  bytes_ += p.wire_bytes;
  class_bytes_[prio] += p.wire_bytes;
  if (credit_ != nullptr) credit_->on_ingress_bytes(0, prio, class_bytes_[prio]);
  stats_.peak_bytes = std::max(stats_.peak_bytes, bytes_);
  queue_.push_back(h);
  if (((pfc_lossless_ >> prio) & 1u) != 0 && !pfc_->asserted(prio) &&
      class_bytes_[prio] > params_.pfc_xoff_bytes) {
    pfc_->xoff(prio, class_bytes_[prio]);
  }
  if (!draining_) start_drain();
}

// The host takes the head packet's payload at the drain rate (one DMA write at a time), across
// the shared links too (a GPU's PCIe link, staging memory).
void NicRxBuffer::start_drain() {
  draining_ = true;
  const Packet& p = ctx_.pool[queue_.front()];
  const sim::Time now = ctx_.sim.now();
  sim::Time done = now;
  if (drain_bps_ > 0) done += sim::serialization_time(p.payload_bytes, drain_bps_);
  for (SharedDmaLink* l : shared_) {
    const sim::Time d = l->done_at(SharedDmaLink::kWrite, now, p.payload_bytes);
    l->commit(SharedDmaLink::kWrite, d);
    done = std::max(done, d);
  }
  ctx_.sim.after(done - now, this, 0);
}

void NicRxBuffer::on_event(uint32_t, uint64_t) {
  const PacketHandle h = queue_.front();
  queue_.pop_front();
  const Packet& p = ctx_.pool[h];
  const uint8_t prio = p.priority;
  bytes_ -= p.wire_bytes;
  class_bytes_[prio] -= p.wire_bytes;
  if (credit_ != nullptr) credit_->on_ingress_bytes(0, prio, class_bytes_[prio]);
  if (pfc_ && prio < kPriorities && pfc_->asserted(prio) &&
      class_bytes_[prio] <= params_.pfc_xoff_bytes - params_.pfc_xon_offset_bytes) {
    pfc_->xon(prio, class_bytes_[prio]);
  }
  if (!consumer_.on_drained(h)) ctx_.pool.release(h);
  if (queue_.empty()) {
    draining_ = false;
  } else {
    start_drain();
  }
}

void NicRxBuffer::finish_accounting() {
  if (pfc_) pfc_->finish_accounting();
}

}  // namespace models
