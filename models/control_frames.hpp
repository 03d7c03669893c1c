// The control frames the models send, each built in one place: a PFC pause frame (sent by a
// switch's ingress, a NIC's receive buffer, a storming NIC) and a receiver's reply to the
// sender of a message (RDMA ACK, NACK and CNP; kernel TCP's ACK).
#pragma once

#include <cstdint>

#include "models/packet.hpp"
#include "models/roce/pfc_headroom.hpp"

namespace models {

// A PFC frame (IEEE 802.1Qbb) for one priority: the pause time in quanta is carried in `psn`
// (0 = XON, resume); on the wire a minimum Ethernet frame with its preamble and gap. The
// sender fills in who it is (`src_host` for a NIC) and logs it.
inline PacketHandle make_pfc_frame(PacketPool& pool, uint8_t priority, uint32_t quanta) {
  const PacketHandle h = pool.alloc();
  Packet& f = pool[h];
  f.type = PacketType::Pause;
  f.priority = priority;
  f.psn = quanta;
  f.wire_bytes = static_cast<uint32_t>(kPfcFrameWireBytes);
  return h;
}

// The class a reply travels in: its service level (InfiniBand) or Ethernet priority as
// configured, the lane (virtual lane or priority queue) it takes, and its DSCP.
struct ReplyClass {
  uint8_t sl = 0;
  uint8_t lane = 0;
  uint8_t dscp = 0;
};

// A reply from the receiver of a message's packet (sent `data_src` -> `data_dst` on QP `qp`
// with UDP source port `sport`) to its sender: the same QP (counted as one of its packets in
// flight), the hosts swapped, the same UDP source port (the ECMP hash of the reverse path is
// the data's), `type`, `wire_bytes` on the wire, the class, the TTL. The caller sets what the
// reply carries (the PSN, echoed time and marks, telemetry) and sends it.
inline PacketHandle make_reply(PacketPool& pool, uint32_t qp, uint32_t data_src, uint32_t data_dst,
                               uint16_t sport, PacketType type, uint32_t wire_bytes, ReplyClass c,
                               uint8_t ttl) {
  const PacketHandle h = pool.alloc();
  Packet& a = pool[h];
  a.qp = qp;
  pool.count_qp_packet(a);
  a.src_host = data_dst;
  a.dst_host = data_src;
  a.udp_sport = sport;
  a.type = type;
  a.wire_bytes = wire_bytes;
  a.sl = c.sl;
  a.priority = c.lane;
  a.dscp = c.dscp;
  a.ttl = ttl;
  return h;
}

// The same in reply to the data packet `data`.
inline PacketHandle make_reply(PacketPool& pool, const Packet& data, PacketType type,
                               uint32_t wire_bytes, ReplyClass c, uint8_t ttl) {
  return make_reply(pool, data.qp, data.src_host, data.dst_host, data.udp_sport, type, wire_bytes,
                    c, ttl);
}

}  // namespace models
