// Scenario replay over TCP: every rank listens on a socket, addresses travel over MPI, each
// flow has its own connection (a version-checked header naming the flow and its size, the
// payload, then the receiver's acknowledgement).
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "scenarios/loader/input_error.hpp"
#include "tools/probe/replay_transport.hpp"
#include "tools/probe/tcp_socket.hpp"

namespace probe {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kChunk = 1 << 20;
constexpr size_t kMaxFlowsPerRank = 4096;  // one thread per flow

// Receives the flows addressed to this host: each connection carries one flow, checked
// against the scenario (it must be one of ours, with its size), then acknowledged.
void serve(TcpListener& l, const scen::Scenario& s, int me, size_t expected, FirstError& err) {
  std::vector<std::thread> workers;
  for (size_t n = 0; n < expected; ++n) {
    TcpConnection c;
    try {
      c = l.accept_one();
    } catch (const std::exception& e) {
      err.set(std::string("waiting for a flow: ") + e.what());
      break;
    }
    workers.emplace_back([&s, me, &err, conn = std::move(c)]() mutable {
      try {
        const Header h = conn.recv_header(MsgKind::Data, kMaxMessageBytes);
        if (h.tag >= s.flows.size() || s.flows[h.tag].dst_host != me ||
            static_cast<uint64_t>(s.flows[h.tag].bytes) != h.bytes) {
          throw ProtocolError("flow " + std::to_string(h.tag) + " of " + std::to_string(h.bytes) +
                              " bytes is not a flow of the scenario "
                              "to host " +
                              std::to_string(me));
        }
        std::vector<unsigned char> buf(std::min<uint64_t>(h.bytes, kChunk) + 1);
        for (uint64_t left = h.bytes; left > 0;) {
          const size_t n = static_cast<size_t>(std::min<uint64_t>(left, kChunk));
          conn.recv_all(buf.data(), n);
          left -= n;
        }
        conn.send_header(MsgKind::Ack, h.bytes, h.tag);
      } catch (const std::exception& e) {
        err.set(e.what());
      }
    });
  }
  for (auto& w : workers) w.join();
}

}  // namespace

std::vector<Completion> replay_tcp(const scen::Scenario& s, int rank, int size,
                                   const ReplayOptions& o, FirstError& err) {
  std::vector<size_t> mine;
  size_t incoming = 0;
  for (size_t i = 0; i < s.flows.size(); ++i) {
    if (s.flows[i].src_host == rank) mine.push_back(i);
    if (s.flows[i].dst_host == rank) ++incoming;
  }
  if (mine.size() > kMaxFlowsPerRank) {
    throw scen::InputError(o.scenario,
                           std::to_string(mine.size()) + " flows from host " + std::to_string(rank),
                           "at most " + std::to_string(kMaxFlowsPerRank) + " per host");
  }
  // Connection data: every rank's address and port, over MPI.
  TcpListener listener(o.bind, 0);
  char addr[64] = {};
  std::string advertised = o.bind;
  if (advertised == "0.0.0.0") {
    char host[64] = {};
    gethostname(host, sizeof host - 1);
    advertised = host;
  }
  std::snprintf(addr, sizeof addr, "%s", advertised.c_str());
  std::vector<char> addrs(64 * static_cast<size_t>(size));
  MPI_Allgather(addr, 64, MPI_CHAR, addrs.data(), 64, MPI_CHAR, MPI_COMM_WORLD);
  int port = listener.port();
  std::vector<int> ports(static_cast<size_t>(size));
  MPI_Allgather(&port, 1, MPI_INT, ports.data(), 1, MPI_INT, MPI_COMM_WORLD);

  std::thread server([&] { serve(listener, s, rank, incoming, err); });
  MPI_Barrier(MPI_COMM_WORLD);
  const Clock::time_point t0 = Clock::now();  // the scenario's time 0 on every rank
  std::vector<Completion> done(mine.size());
  std::vector<std::thread> senders;
  for (size_t k = 0; k < mine.size(); ++k) {
    senders.emplace_back([&, k] {
      const models::FlowSpec& f = s.flows[mine[k]];
      done[k].flow = static_cast<int64_t>(mine[k]);
      try {
        std::this_thread::sleep_until(t0 + std::chrono::nanoseconds(f.start.ps / 1000));
        TcpConnection c =
            tcp_connect(&addrs[64 * static_cast<size_t>(f.dst_host)],
                        static_cast<uint16_t>(ports[static_cast<size_t>(f.dst_host)]));
        c.send_header(MsgKind::Data, static_cast<uint64_t>(f.bytes),
                      static_cast<uint32_t>(mine[k]));
        std::vector<unsigned char> buf(std::min<int64_t>(f.bytes, kChunk), 0);
        for (int64_t left = f.bytes; left > 0;) {
          const size_t n = static_cast<size_t>(std::min<int64_t>(left, kChunk));
          c.send_all(buf.data(), n);
          left -= static_cast<int64_t>(n);
        }
        c.recv_header(MsgKind::Ack, static_cast<uint64_t>(f.bytes));
        done[k].finish_ps =
            std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count() * 1000;
        done[k].completed = 1;
      } catch (const std::exception& e) {
        err.set("flow " + std::to_string(mine[k]) + ": " + e.what());
      }
    });
  }
  for (auto& t : senders) t.join();
  // Every rank's senders are done (acknowledged or failed): a receiver still waiting for a
  // connection would wait for a flow that failed, so the listener closes.
  MPI_Barrier(MPI_COMM_WORLD);
  listener.close_now();
  server.join();
  return done;
}

}  // namespace probe
