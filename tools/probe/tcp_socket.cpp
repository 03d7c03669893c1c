#include "tools/probe/tcp_socket.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace probe {
namespace {

std::runtime_error sys_error(const std::string& what) {
  return std::runtime_error(what + ": " + std::strerror(errno));
}

sockaddr_in resolve(const std::string& address, uint16_t port) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(address.c_str(), nullptr, &hints, &res) != 0 || res == nullptr) {
    throw std::runtime_error("cannot resolve address '" + address + "'");
  }
  sockaddr_in a{};
  std::memcpy(&a, res->ai_addr, sizeof a);
  freeaddrinfo(res);
  a.sin_port = htons(port);
  return a;
}

}  // namespace

bool resolvable(const std::string& address) {
  try {
    (void)resolve(address, 0);
    return true;
  } catch (const std::runtime_error&) {
    return false;
  }
}

TcpConnection::~TcpConnection() {
  if (fd_ >= 0) ::close(fd_);
}

TcpConnection& TcpConnection::operator=(TcpConnection&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    receive_timeout_s_ = o.receive_timeout_s_;
    o.fd_ = -1;
  }
  return *this;
}

void TcpConnection::send_all(const void* data, size_t bytes) {
  const auto* p = static_cast<const unsigned char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::send(fd_, p, bytes, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw sys_error("send");
    p += n;
    bytes -= static_cast<size_t>(n);
  }
}

void TcpConnection::set_receive_timeout(int seconds) {
  timeval tv{};
  tv.tv_sec = seconds;
  if (::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0) {
    throw sys_error("setsockopt(SO_RCVTIMEO)");
  }
  receive_timeout_s_ = seconds;
}

void TcpConnection::recv_all(void* data, size_t bytes) {
  auto* p = static_cast<unsigned char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::recv(fd_, p, bytes, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && receive_timeout_s_ > 0) {
      throw std::runtime_error("the peer sent nothing for " + std::to_string(receive_timeout_s_) +
                               " s (--idle-timeout): giving up on it");
    }
    if (n == 0) throw std::runtime_error("peer closed the connection mid-message");
    if (n < 0) throw sys_error("recv");
    p += n;
    bytes -= static_cast<size_t>(n);
  }
}

void TcpConnection::send_header(MsgKind kind, uint64_t bytes, uint32_t tag) {
  unsigned char buf[kHeaderBytes];
  Header h;
  h.kind = static_cast<uint32_t>(kind);
  h.tag = tag;
  h.bytes = bytes;
  encode(h, buf);
  send_all(buf, sizeof buf);
}

Header TcpConnection::recv_header(MsgKind expected, uint64_t max_bytes) {
  unsigned char buf[kHeaderBytes];
  recv_all(buf, sizeof buf);
  return decode(buf, expected, max_bytes);
}

TcpListener::TcpListener(const std::string& address, uint16_t port) {
  fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd_ < 0) throw sys_error("socket");
  const int one = 1;
  ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  const sockaddr_in a = resolve(address.empty() ? "127.0.0.1" : address, port);
  if (::bind(fd_, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) {
    const auto e = sys_error("bind " + address + ":" + std::to_string(port));
    ::close(fd_);
    throw e;
  }
  if (::listen(fd_, 128) != 0) throw sys_error("listen");
  sockaddr_in bound{};
  socklen_t len = sizeof bound;
  ::getsockname(fd_, reinterpret_cast<sockaddr*>(&bound), &len);
  port_ = ntohs(bound.sin_port);
}

TcpListener::~TcpListener() {
  close_now();
}

void TcpListener::close_now() {
  if (fd_ >= 0) {
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    fd_ = -1;
  }
}

TcpConnection TcpListener::accept_one() {
  for (;;) {
    const int c = ::accept(fd_, nullptr, nullptr);
    if (c < 0 && errno == EINTR) continue;
    if (c < 0) throw sys_error("accept");
    const int one = 1;
    ::setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return TcpConnection(c);
  }
}

TcpConnection tcp_connect(const std::string& address, uint16_t port, int retry_ms) {
  const sockaddr_in a = resolve(address, port);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(retry_ms);
  for (;;) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) throw sys_error("socket");
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) == 0) {
      const int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      return TcpConnection(fd);
    }
    const int err = errno;
    ::close(fd);
    if (std::chrono::steady_clock::now() > deadline) {
      errno = err;
      throw sys_error("connect " + address + ":" + std::to_string(port));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the server is starting
  }
}

}  // namespace probe
