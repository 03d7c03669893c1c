// The control frames the models send, each built in one place: a PFC pause frame (sent by a
// switch's ingress, a NIC's receive buffer, a storming NIC) and a receiver's reply to the
// sender of a message (RDMA ACK, NACK and CNP; kernel TCP's ACK).
#pragma once

#include <cstdint>

#include "models/packet.hpp"
#include "models/roce/pfc_headroom.hpp"

namespace models {

// A PFC frame (IEEE 802.1Qbb) for one priority: its pause time in quanta (0 = XON, resume); on the
// wire a minimum Ethernet frame with its preamble and gap. Returns the frame, `h` its handle; the
// sender fills in who it is (`src_host` for a NIC) and logs it.
inline Packet& make_pfc_frame(PacketPool& pool, PacketHandle& h, uint8_t priority,
                              uint32_t quanta) {
  h = pool.alloc();
  Packet& f = pool[h];
  f.type = PacketType::Pause;
  f.priority = priority;
  f.set_pause_quanta(quanta);
  f.wire_bytes = static_cast<uint32_t>(kPfcFrameWireBytes);
  return f;
}

// A reply from the receiver of a message's packet (sent `data_src` -> `data_dst` on QP `qp`
// with UDP source port `sport`) to its sender: the same QP (counted as one of its packets in
// flight), the hosts swapped, the same UDP source port (the ECMP hash of the reverse path is
// the data's), and `type`. Returns the packet, `h` its handle; the caller sets its size, class
// and TTL and what it carries (the PSN, echoed time and marks, telemetry), then sends it.
// (The caller computes those after this call: values computed before a call that allocates
// would wait on the stack.)
inline Packet& make_reply(PacketPool& pool, PacketHandle& h, uint32_t qp, uint32_t data_src,
                          uint32_t data_dst, uint16_t sport, PacketType type) {
  h = pool.alloc();
  Packet& a = pool[h];
  a.qp = qp;
  pool.count_qp_packet(a);
  a.src_host = data_dst;
  a.dst_host = data_src;
  a.udp_sport = sport;
  a.type = type;
  return a;
}

// The same in reply to the data packet `data`.
inline Packet& make_reply(PacketPool& pool, PacketHandle& h, const Packet& data, PacketType type) {
  return make_reply(pool, h, data.qp, data.src_host, data.dst_host, data.udp_sport, type);
}

}  // namespace models
