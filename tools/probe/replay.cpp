#include "tools/probe/replay.hpp"

#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <thread>

#include "scenarios/builder/build_network.hpp"
#include "scenarios/loader/input_error.hpp"
#include "scenarios/loader/scenario.hpp"
#include "scenarios/outputs/write_outputs.hpp"
#include "scenarios/run/run_scenario.hpp"
#include "tools/probe/tcp_socket.hpp"

namespace probe {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kChunk = 1 << 20;
constexpr size_t kMaxFlowsPerRank = 4096;  // one thread per flow

// The first error any thread met (threads report here; the rank prints it once).
class FirstError {
 public:
  void set(const std::string& e) {
    std::lock_guard<std::mutex> g(m_);
    if (!failed_) text_ = e;
    failed_ = true;
  }
  bool failed() const {
    std::lock_guard<std::mutex> g(m_);
    return failed_;
  }
  std::string text() const {
    std::lock_guard<std::mutex> g(m_);
    return text_;
  }

 private:
  mutable std::mutex m_;
  bool failed_ = false;
  std::string text_;
};

struct Completion {
  int64_t flow = -1;
  int64_t finish_ps = 0;  // since the common start
  int64_t completed = 0;
};

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

int run_replay(int* argc, char*** argv, const ReplayOptions& o) {
  MPI_Init(argc, argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int code = 0;
  try {
    scen::LoadOptions lo;
    lo.sets = o.sets;
    const scen::Scenario s = scen::load_scenario_file(o.scenario, lo);
    const int hosts = static_cast<int>(s.fabric.host_node.size());
    if (hosts != size) {
      throw scen::InputError(o.scenario, std::to_string(hosts) + " hosts",
                             "one MPI rank per host: mpirun -np " + std::to_string(hosts) +
                                 " (this run has " + std::to_string(size) + ")");
    }
    std::vector<size_t> mine;
    size_t incoming = 0;
    for (size_t i = 0; i < s.flows.size(); ++i) {
      if (s.flows[i].src_host == rank) mine.push_back(i);
      if (s.flows[i].dst_host == rank) ++incoming;
    }
    if (mine.size() > kMaxFlowsPerRank) {
      throw scen::InputError(
          o.scenario, std::to_string(mine.size()) + " flows from host " + std::to_string(rank),
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

    FirstError err;
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
              std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count() *
              1000;
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
    if (err.failed()) {
      std::fprintf(stderr, "rdmasim-probe replay: rank %d: %s\n", rank, err.text().c_str());
    }

    // Gather (flow, finish, completed) triples at rank 0.
    std::vector<int64_t> flat;
    for (const auto& d : done) {
      flat.insert(flat.end(), {d.flow, d.finish_ps, d.completed});
    }
    int count = static_cast<int>(flat.size());
    std::vector<int> counts(static_cast<size_t>(size)), displs(static_cast<size_t>(size));
    MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    int total = 0;
    for (int r = 0; r < size; ++r) {
      displs[static_cast<size_t>(r)] = total;
      total += counts[static_cast<size_t>(r)];
    }
    std::vector<int64_t> all(static_cast<size_t>(rank == 0 ? total : 0));
    MPI_Gatherv(flat.data(), count, MPI_INT64_T, all.data(), counts.data(), displs.data(),
                MPI_INT64_T, 0, MPI_COMM_WORLD);
    int any_failed = err.failed() ? 1 : 0, failures = 0;
    MPI_Reduce(&any_failed, &failures, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      // flows.csv exactly as `rdmasim run` writes it (ideal FCT from the scenario's fabric).
      sim::Simulator sim(s.seed);
      const auto net = scen::build_network(s, sim);
      scen::RunOutcome out;
      std::vector<Completion> by_flow(s.flows.size());
      for (size_t i = 0; i + 2 < all.size(); i += 3) {
        by_flow[static_cast<size_t>(all[i])] = {all[i], all[i + 1], all[i + 2]};
      }
      const auto& f = s.fabric;
      for (size_t i = 0; i < s.flows.size(); ++i) {
        const models::FlowSpec& fs = s.flows[i];
        scen::FlowResult r;
        r.id = static_cast<uint32_t>(i);
        r.tag = fs.tag;
        r.src = f.topo.nodes[f.host_node[fs.src_host]].name;
        r.dst = f.topo.nodes[f.host_node[fs.dst_host]].name;
        r.bytes = fs.bytes;
        r.priority = fs.priority;
        r.qps = fs.qps;
        r.start = fs.start;
        r.completed = by_flow[i].completed == 1;
        if (r.completed) {
          r.finish = sim::Time(std::max(by_flow[i].finish_ps, fs.start.ps));
          r.fct = r.finish - fs.start;
        }
        const models::QueuePair& q0 = net->transport->qp(net->transport->flow(i).first_qp);
        const auto data =
            scen::trace_path(s, *net, q0.src_host, q0.dst_host, q0.udp_sport, q0.route_id);
        const auto ack = scen::trace_path(s, *net, q0.dst_host, q0.src_host, q0.udp_sport, 0);
        if (!data.empty() && !ack.empty())
          r.ideal_fct = models::ideal_fct(data, ack, r.bytes, s.nic, s.nic.host, s.nic.host);
        out.flows.push_back(std::move(r));
      }
      std::filesystem::create_directories(o.out_dir);
      scen::write_file_atomic(o.out_dir + "/flows.csv", scen::flows_csv(out));
      if (!o.quiet) {
        std::printf(
            "replayed %s on %d ranks over tcp: %zu flows, %d rank(s) with errors\n"
            "  outputs in %s/flows.csv\n",
            s.name.c_str(), size, s.flows.size(), failures, o.out_dir.c_str());
      }
      code = failures > 0 ? 1 : 0;
    }
  } catch (const scen::InputError& e) {
    if (rank == 0) std::fprintf(stderr, "rdmasim-probe: error: %s\n", e.what());
    code = 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rdmasim-probe: rank %d: %s\n", rank, e.what());
    code = 1;
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return code;
}

}  // namespace probe
