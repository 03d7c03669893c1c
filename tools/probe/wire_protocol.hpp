// What rdmasim-probe peers say to each other before and around the measured bytes: a fixed
// 24-byte hello/header in network byte order with a magic, a protocol version, the message
// kind and size. Every header read is checked; a peer of another version or a size beyond
// what was agreed is refused with a message naming both values (never a silent hang).
#pragma once

#include <arpa/inet.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace probe {

constexpr uint32_t kMagic = 0x52534D50;  // "RSMP"
constexpr uint32_t kProtocolVersion = 1;
constexpr uint64_t kMaxMessageBytes = 1ULL << 32;  // 4 GiB: larger sizes are refused

enum class MsgKind : uint32_t {
  Hello = 1,      // session start: the size sweep's largest message in `bytes`
  Data = 2,       // `bytes` of payload follow (replay: one flow's message, id in `tag`)
  Ack = 3,        // a message (or a bandwidth batch) was received in full
  VerbsInfo = 4,  // verbs connection data follow (queue pair numbers, keys, addresses)
};

struct Header {
  uint32_t magic = kMagic;
  uint32_t version = kProtocolVersion;
  uint32_t kind = 0;
  uint32_t tag = 0;
  uint64_t bytes = 0;
};

constexpr size_t kHeaderBytes = 24;

inline void encode(const Header& h, unsigned char* out) {
  const uint32_t w[4] = {htonl(h.magic), htonl(h.version), htonl(h.kind), htonl(h.tag)};
  std::memcpy(out, w, 16);
  const uint32_t hi = htonl(static_cast<uint32_t>(h.bytes >> 32));
  const uint32_t lo = htonl(static_cast<uint32_t>(h.bytes));
  std::memcpy(out + 16, &hi, 4);
  std::memcpy(out + 20, &lo, 4);
}

struct ProtocolError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Decodes and checks a header: magic, version, the expected kind, bytes <= max_bytes.
inline Header decode(const unsigned char* in, MsgKind expected, uint64_t max_bytes) {
  uint32_t w[4];
  std::memcpy(w, in, 16);
  uint32_t hi = 0, lo = 0;
  std::memcpy(&hi, in + 16, 4);
  std::memcpy(&lo, in + 20, 4);
  Header h{ntohl(w[0]), ntohl(w[1]), ntohl(w[2]), ntohl(w[3]),
           (static_cast<uint64_t>(ntohl(hi)) << 32) | ntohl(lo)};
  if (h.magic != kMagic) {
    throw ProtocolError("peer is not an rdmasim-probe (bad magic)");
  }
  if (h.version != kProtocolVersion) {
    throw ProtocolError("peer speaks protocol version " + std::to_string(h.version) +
                        ", this probe version " + std::to_string(kProtocolVersion));
  }
  if (h.kind != static_cast<uint32_t>(expected)) {
    throw ProtocolError("peer sent message kind " + std::to_string(h.kind) + ", expected " +
                        std::to_string(static_cast<uint32_t>(expected)));
  }
  if (h.bytes > max_bytes) {
    throw ProtocolError("peer announced " + std::to_string(h.bytes) + " bytes, more than the " +
                        std::to_string(max_bytes) + " agreed");
  }
  return h;
}

}  // namespace probe
