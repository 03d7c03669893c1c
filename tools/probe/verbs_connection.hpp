// What two ranks of a verbs scenario replay tell each other to connect their queue pairs: one
// blob per (rank, peer) pair, exchanged over MPI. Fixed-width fields in network byte order,
// behind the probe's magic, a format version, the sender's rank and the entry count, so that a
// peer of another version, a blob from the wrong rank or one whose length disagrees with its
// count is refused with both values named (never a queue pair connected to garbage).
// Needs neither libibverbs nor MPI: it is what the unit tests round-trip.
#pragma once

#include <arpa/inet.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tools/probe/wire_protocol.hpp"

namespace probe {

constexpr uint32_t kConnectionVersion = 1;

// Which end of a flow's queue pair an entry describes.
enum class QpRole : uint32_t { Requester = 0, Responder = 1 };

// One queue pair's address: flow id and its stripe index name it on both sides.
struct QpAddress {
  uint32_t flow = 0;
  uint32_t index = 0;  // stripe index within the flow (0 .. qps-1)
  QpRole role = QpRole::Requester;
  uint32_t qpn = 0;  // 24-bit queue pair number
  uint32_t psn = 0;  // 24-bit initial packet sequence number
};

struct ConnectionData {
  uint32_t rank = 0;  // the rank that wrote it
  uint32_t lid = 0;   // port LID (InfiniBand; 0 on RoCE)
  std::array<uint8_t, 16> gid{};
  uint32_t rkey = 0;          // remote key of the receive region
  uint64_t addr = 0;          // virtual address of the receive region
  uint64_t region_bytes = 0;  // its size: the largest single write it accepts
  std::vector<QpAddress> qps;
};

// magic, version, rank, lid, rkey, count (6 x 4) + addr, region_bytes (2 x 8) + gid (16).
constexpr size_t kConnectionHeaderBytes = 24 + 16 + 16;
constexpr size_t kQpAddressBytes = 20;  // flow, index, role, qpn, psn

namespace detail {
// Writes at a cursor into a buffer sized up front (no growth while encoding).
inline unsigned char* put32(unsigned char* out, uint32_t v) {
  const uint32_t n = htonl(v);
  std::memcpy(out, &n, 4);
  return out + 4;
}
inline unsigned char* put64(unsigned char* out, uint64_t v) {
  return put32(put32(out, static_cast<uint32_t>(v >> 32)), static_cast<uint32_t>(v));
}
inline uint32_t get32(const unsigned char* in) {
  uint32_t n = 0;
  std::memcpy(&n, in, 4);
  return ntohl(n);
}
inline uint64_t get64(const unsigned char* in) {
  return (static_cast<uint64_t>(get32(in)) << 32) | get32(in + 4);
}
}  // namespace detail

inline std::vector<unsigned char> encode_connection(const ConnectionData& c) {
  std::vector<unsigned char> out(kConnectionHeaderBytes + kQpAddressBytes * c.qps.size());
  unsigned char* at = out.data();
  at = detail::put32(at, kMagic);
  at = detail::put32(at, kConnectionVersion);
  at = detail::put32(at, c.rank);
  at = detail::put32(at, c.lid);
  at = detail::put32(at, c.rkey);
  at = detail::put32(at, static_cast<uint32_t>(c.qps.size()));
  at = detail::put64(at, c.addr);
  at = detail::put64(at, c.region_bytes);
  std::memcpy(at, c.gid.data(), 16);
  at += 16;
  for (const QpAddress& q : c.qps) {
    at = detail::put32(at, q.flow);
    at = detail::put32(at, q.index);
    at = detail::put32(at, static_cast<uint32_t>(q.role));
    at = detail::put32(at, q.qpn);
    at = detail::put32(at, q.psn);
  }
  return out;
}

// Decodes and checks one peer's blob: magic, version, that it comes from `expected_rank`, that
// its length is exactly the header plus its count of entries, at most `max_qps` entries, and
// that each entry's role, QP number and PSN are in range.
inline ConnectionData decode_connection(const unsigned char* in, size_t bytes,
                                        uint32_t expected_rank, size_t max_qps) {
  const std::string from = "connection data from rank " + std::to_string(expected_rank);
  if (bytes < kConnectionHeaderBytes) {
    throw ProtocolError(from + " is " + std::to_string(bytes) + " bytes, shorter than its " +
                        std::to_string(kConnectionHeaderBytes) + "-byte header");
  }
  if (detail::get32(in) != kMagic) throw ProtocolError(from + ": not an rdmasim-probe (bad magic)");
  const uint32_t version = detail::get32(in + 4);
  if (version != kConnectionVersion) {
    throw ProtocolError(from + " has format version " + std::to_string(version) +
                        ", this probe version " + std::to_string(kConnectionVersion));
  }
  ConnectionData c;
  c.rank = detail::get32(in + 8);
  if (c.rank != expected_rank) {
    throw ProtocolError(from + " names rank " + std::to_string(c.rank));
  }
  c.lid = detail::get32(in + 12);
  c.rkey = detail::get32(in + 16);
  const uint32_t count = detail::get32(in + 20);
  c.addr = detail::get64(in + 24);
  c.region_bytes = detail::get64(in + 32);
  std::memcpy(c.gid.data(), in + 40, 16);
  if (count > max_qps) {
    throw ProtocolError(from + " lists " + std::to_string(count) + " queue pairs, at most " +
                        std::to_string(max_qps) + " expected");
  }
  const size_t want = kConnectionHeaderBytes + kQpAddressBytes * count;
  if (bytes != want) {
    throw ProtocolError(from + " is " + std::to_string(bytes) + " bytes, expected " +
                        std::to_string(want) + " for " + std::to_string(count) + " queue pairs");
  }
  c.qps.resize(count);
  for (uint32_t i = 0; i < count; ++i) {
    const unsigned char* e = in + kConnectionHeaderBytes + kQpAddressBytes * i;
    QpAddress& q = c.qps[i];
    q.flow = detail::get32(e);
    q.index = detail::get32(e + 4);
    const uint32_t role = detail::get32(e + 8);
    q.qpn = detail::get32(e + 12);
    q.psn = detail::get32(e + 16);
    if (role > 1 || q.qpn > 0xFFFFFF || q.psn > 0xFFFFFF) {
      throw ProtocolError(from + ", entry " + std::to_string(i) + ": role " + std::to_string(role) +
                          ", QP number " + std::to_string(q.qpn) + ", PSN " +
                          std::to_string(q.psn) + " (expected role 0 or 1 and 24-bit numbers)");
    }
    q.role = static_cast<QpRole>(role);
  }
  return c;
}

}  // namespace probe
