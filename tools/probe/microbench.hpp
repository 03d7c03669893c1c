// perftest-style microbenchmarks over any transport: a ping-pong latency sweep (half the round
// trip, as perftest reports) and a streaming bandwidth sweep, returned as a perftest trace
// (scenarios/traces) that prints in perftest's layout and that `rdmasim calibrate` reads.
// A TCP control connection carries the session: a hello with the protocol version and the
// largest size, then per size a header with the size and the iterations, checked on arrival.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scenarios/traces/trace.hpp"
#include "tools/probe/tcp_socket.hpp"

namespace probe {

// One side of a measured connection. The TCP transport moves bytes over the control
// connection itself; verbs moves them with RDMA WRITE or SEND on its queue pairs.
class Endpoint {
 public:
  virtual ~Endpoint() = default;
  virtual void send_message(size_t bytes) = 0;  // returns when the transport took it
  virtual void recv_message(size_t bytes) = 0;  // returns when all of it has arrived
  // Streams `count` messages (bandwidth test), returning when the sender may reuse buffers.
  virtual void send_stream(size_t bytes, int64_t count) {
    for (int64_t i = 0; i < count; ++i) send_message(bytes);
  }
  virtual void recv_stream(size_t bytes, int64_t count) {
    for (int64_t i = 0; i < count; ++i) recv_message(bytes);
  }
  virtual traces::PerftestInfo info() const = 0;  // device, link type, MTU, QPs
};

class TcpEndpoint final : public Endpoint {
 public:
  TcpEndpoint(TcpConnection& c, size_t max_bytes) : c_(c), buf_(max_bytes) {}
  void send_message(size_t bytes) override { c_.send_all(buf_.data(), bytes); }
  void recv_message(size_t bytes) override { c_.recv_all(buf_.data(), bytes); }
  traces::PerftestInfo info() const override;

 private:
  TcpConnection& c_;
  std::vector<unsigned char> buf_;
};

struct SweepOptions {
  std::vector<int64_t> sizes;  // increasing
  int64_t iterations = 1000;
  bool latency = true;
  std::string verb = "send";  // write | send (the title perftest would print)
};

// "2:8MiB" -> 2, 4, ..., 8 MiB (powers of two), or a comma list "64,4096".
std::vector<int64_t> parse_sizes(const std::string& text);

// The measuring side (client): runs the sweep, returns the table.
traces::PerftestTrace run_sweep_client(Endpoint& ep, TcpConnection& ctrl, const SweepOptions& o);
// The answering side (server): follows the client's session until it ends; a client whose
// largest message exceeds `max_bytes` (the server's buffers) is refused.
void run_sweep_server(Endpoint& ep, TcpConnection& ctrl, uint64_t max_bytes);

}  // namespace probe
