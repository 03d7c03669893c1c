// Plain TCP sockets for rdmasim-probe: a listener bound to loopback unless an address is
// given, connections with TCP_NODELAY (a ping-pong must not wait for Nagle), and whole-buffer
// send/receive with the protocol headers of wire_protocol.hpp.
#pragma once

#include <cstdint>
#include <string>

#include "tools/probe/wire_protocol.hpp"

namespace probe {

// Whether `address` (a name or dotted IPv4) resolves: options are checked before anything
// listens or connects.
bool resolvable(const std::string& address);

class TcpConnection {
 public:
  TcpConnection() = default;
  explicit TcpConnection(int fd) : fd_(fd) {}
  ~TcpConnection();
  TcpConnection(TcpConnection&& o) noexcept : fd_(o.fd_), receive_timeout_s_(o.receive_timeout_s_) {
    o.fd_ = -1;
  }
  TcpConnection& operator=(TcpConnection&& o) noexcept;
  TcpConnection(const TcpConnection&) = delete;
  TcpConnection& operator=(const TcpConnection&) = delete;

  bool open() const { return fd_ >= 0; }
  // A receive that waits longer than `seconds` for data throws (0 = wait for ever): a server
  // is not held by a client that connected and went quiet.
  void set_receive_timeout(int seconds);
  void send_all(const void* data, size_t bytes);
  void recv_all(void* data, size_t bytes);
  void send_header(MsgKind kind, uint64_t bytes, uint32_t tag = 0);
  Header recv_header(MsgKind expected, uint64_t max_bytes);

 private:
  int fd_ = -1;
  int receive_timeout_s_ = 0;
};

class TcpListener {
 public:
  // Binds `address` (default loopback) and `port` (0 = any free port).
  TcpListener(const std::string& address, uint16_t port);
  ~TcpListener();
  TcpListener(const TcpListener&) = delete;
  TcpListener& operator=(const TcpListener&) = delete;
  uint16_t port() const { return port_; }
  TcpConnection accept_one();
  void close_now();  // unblocks a thread waiting in accept_one (it then throws)

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
};

TcpConnection tcp_connect(const std::string& address, uint16_t port, int retry_ms = 5000);

}  // namespace probe
