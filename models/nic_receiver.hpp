// A NIC's receiver (the responder) for RDMA data that has reached its host: it accepts packets
// in order, acknowledges them (coalescing every `ack_every`), NACKs the first gap once and
// re-ACKs duplicates (go-back-N); under adaptive routing it places packets out of order and
// acknowledges cumulatively instead. As DCQCN's notification point it answers CE-marked data
// with a CNP (or flags the ACK), as InfiniBand CC's with a BECN for FECN-marked data.
#pragma once

#include <cstdint>

#include "models/context.hpp"
#include "models/egress_port.hpp"
#include "models/nic_settings.hpp"
#include "models/transport.hpp"

namespace models {

struct NicStats;

class NicReceiver {
 public:
  // `params`, `settings` and `stats` are the NIC's own, read as they are when used.
  NicReceiver(Context& ctx, Transport& transport, EgressPort& port, uint32_t host,
              const NicParams& params, const NicSettings& settings, NicStats& stats)
      : ctx_(ctx),
        transport_(transport),
        port_(port),
        host_(host),
        params_(params),
        settings_(settings),
        stats_(stats) {}

  // Accept data packets out of order (adaptive routing in the fabric).
  void accept_out_of_order(bool on) { accept_out_of_order_ = on; }
  // An RDMA data packet handed to the host (the caller releases it).
  void on_data(Packet& p);

 private:
  // An ACK or NACK answering `data`: it echoes the data's send time and takes over its
  // telemetry record.
  void send_control(Packet& data, PacketType type, uint32_t psn);
  void send_cnp(const Packet& data);

  Context& ctx_;
  Transport& transport_;
  EgressPort& port_;
  uint32_t host_;
  const NicParams& params_;
  const NicSettings& settings_;
  NicStats& stats_;
  bool accept_out_of_order_ = false;
};

}  // namespace models
