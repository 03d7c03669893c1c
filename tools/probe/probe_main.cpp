// rdmasim-probe: measures a real fabric the way the simulator models it.
//   rdmasim-probe lat|bw [--transport tcp|verbs] [--server | --connect HOST] [options]
//       perftest-style ping-pong latency or streaming bandwidth over a size sweep, printed in
//       perftest's layout and written (-o) as a trace `rdmasim calibrate` reads. Without
//       --server/--connect both ends run in this process over loopback.
//   mpirun -np N rdmasim-probe replay SCENARIO -o OUT [--transport tcp|verbs]
//       each rank plays one host of the scenario; rank 0 writes OUT/flows.csv as `rdmasim run`.
// Exit codes: 0 ok, 1 internal error (or a failed transfer), 2 bad input or no such device.
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <memory>
#include <thread>

#include "scenarios/loader/input_error.hpp"
#include "scenarios/outputs/write_outputs.hpp"
#include "tools/cli/parse_options.hpp"
#include "tools/probe/microbench.hpp"
#include "tools/probe/replay.hpp"
#include "tools/probe/tcp_socket.hpp"
#include "tools/probe/verbs_endpoint.hpp"
#include "tools/probe/wire_protocol.hpp"

namespace po = boost::program_options;

namespace {

const char* kUsage =
    "rdmasim-probe — measure a real fabric for rdmasim calibrate and compare\n"
    "\n"
    "usage:\n"
    "  rdmasim-probe lat [options]     ping-pong latency sweep (half round trip, as perftest)\n"
    "  rdmasim-probe bw [options]      streaming bandwidth sweep\n"
    "  mpirun -np N rdmasim-probe replay SCENARIO -o OUT   replay a scenario, one rank per host\n"
    "\n"
    "rdmasim-probe lat --help for the options. Exit codes: 0 ok, 1 internal error,\n"
    "2 bad input or no RDMA device.\n";

struct BenchOptions {
  std::string transport = "tcp";
  bool server = false;
  std::string connect;
  std::string bind = "127.0.0.1";
  int port = 18515;  // perftest's default port
  std::string sizes = "2:8MiB";
  int64_t iterations = 1000;
  std::string verb = "write";
  std::string output;
  int idle_timeout_s = 60;
  probe::VerbsOptions verbs;
};

std::unique_ptr<probe::Endpoint> endpoint(const BenchOptions& o, size_t max_bytes,
                                          probe::TcpConnection& ctrl) {
  if (o.transport == "verbs") return probe::make_verbs_endpoint(o.verbs, max_bytes, ctrl);
  return std::make_unique<probe::TcpEndpoint>(ctrl, max_bytes);
}

int bench(bool latency, int argc, char** argv) {
  BenchOptions o;
  po::options_description opts(latency ? "rdmasim-probe lat [options]"
                                       : "rdmasim-probe bw [options]");
  opts.add_options()("help,h", "this help")(
      "transport", po::value(&o.transport)->default_value("tcp"), "tcp | verbs")(
      "server", po::bool_switch(&o.server), "wait for one client, answer its sweep")(
      "connect", po::value(&o.connect), "run the sweep against the server at this address")(
      "bind", po::value(&o.bind)->default_value("127.0.0.1"),
      "address the server listens on (loopback unless given)")(
      "port", po::value(&o.port)->default_value(18515), "control port (TCP)")(
      "sizes", po::value(&o.sizes)->default_value("2:8MiB"),
      "message sizes: LO:HI in powers of two, or a list 64,4096")(
      "iters,n", po::value(&o.iterations)->default_value(1000), "iterations per size")(
      "verb", po::value(&o.verb)->default_value("write"), "verbs: write | send")(
      "device,d", po::value(&o.verbs.device), "verbs: RDMA device (default: the first)")(
      "ib-port,i", po::value(&o.verbs.port)->default_value(1), "verbs: device port")(
      "gid-index,x", po::value(&o.verbs.gid_index)->default_value(-1),
      "verbs: GID index (RoCE; -1 = none, InfiniBand)")(
      "mtu,m", po::value(&o.verbs.mtu)->default_value(4096), "verbs: path MTU")(
      "qps,q", po::value(&o.verbs.qps)->default_value(1), "verbs: number of queue pairs")(
      "output,o", po::value(&o.output), "write the table to this trace file")(
      "idle-timeout", po::value(&o.idle_timeout_s)->default_value(60),
      "--server: give up on a client that sends nothing for this many seconds (0 = never)");
  po::variables_map vm;
  po::store(po::command_line_parser(argc, argv).options(opts).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return 0;
  }
  if (o.transport != "tcp" && o.transport != "verbs") {
    throw scen::InputError("--transport", o.transport, "tcp or verbs");
  }
  if (o.verb != "write" && o.verb != "send")
    throw scen::InputError("--verb", o.verb, "write or send");
  if (o.iterations < 1) throw scen::InputError("--iters", std::to_string(o.iterations), ">= 1");
  if (o.port < 1 || o.port > 65535)
    throw scen::InputError("--port", std::to_string(o.port), "1..65535");
  if (o.idle_timeout_s < 0 || o.idle_timeout_s > 86400) {
    throw scen::InputError("--idle-timeout", std::to_string(o.idle_timeout_s),
                           "seconds, 0..86400 (0 = never)");
  }
  o.verbs.write = o.verb == "write";
  if (o.transport == "verbs") {
    probe::validate_verbs_options(o.verbs, false);
    const std::string missing = probe::verbs_unavailable();
    if (!missing.empty()) {
      std::fprintf(stderr, "rdmasim-probe: %s\n", missing.c_str());
      return 2;
    }
  }
  if (o.server && !o.connect.empty()) {
    throw scen::InputError("--connect", o.connect,
                           "no --connect with --server (a server waits for one client at --bind)");
  }
  if (!probe::resolvable(o.bind)) {
    throw scen::InputError("--bind", o.bind, "an address of this host, such as 127.0.0.1");
  }
  probe::SweepOptions so;
  try {
    so.sizes = probe::parse_sizes(o.sizes);
  } catch (const std::exception& e) {
    throw scen::InputError("--sizes", o.sizes, e.what());
  }
  if (static_cast<uint64_t>(so.sizes.back()) > probe::kMaxMessageBytes) {
    throw scen::InputError("--sizes", o.sizes, "sizes up to 4GiB (the probe protocol's cap)");
  }
  so.iterations = o.iterations;
  so.latency = latency;
  so.verb = o.transport == "tcp" ? "send" : o.verb;
  const auto max_bytes = static_cast<size_t>(so.sizes.back());

  if (o.server) {
    probe::TcpListener l(o.bind, static_cast<uint16_t>(o.port));
    probe::TcpConnection c = l.accept_one();
    if (o.idle_timeout_s > 0) c.set_receive_timeout(o.idle_timeout_s);
    auto ep = endpoint(o, max_bytes, c);
    probe::run_sweep_server(*ep, c, max_bytes);
    return 0;
  }
  traces::PerftestTrace t;
  if (!o.connect.empty()) {
    probe::TcpConnection c = probe::tcp_connect(o.connect, static_cast<uint16_t>(o.port));
    auto ep = endpoint(o, max_bytes, c);
    t = probe::run_sweep_client(*ep, c, so);
  } else {
    // Loopback: the answering side in a thread of this process, on a free port.
    probe::TcpListener l(o.bind, 0);
    std::string server_error;
    std::thread server([&] {
      try {
        probe::TcpConnection c = l.accept_one();
        auto ep = endpoint(o, max_bytes, c);
        probe::run_sweep_server(*ep, c, max_bytes);
      } catch (const std::exception& e) {
        server_error = e.what();
      }
    });
    try {
      probe::TcpConnection c = probe::tcp_connect(o.bind, l.port());
      auto ep = endpoint(o, max_bytes, c);
      t = probe::run_sweep_client(*ep, c, so);
    } catch (...) {
      l.close_now();
      server.join();
      throw;
    }
    server.join();
    if (!server_error.empty()) throw std::runtime_error("server side: " + server_error);
  }
  const std::string text = traces::format_perftest(t);
  std::fputs(text.c_str(), stdout);
  if (!o.output.empty()) scen::write_file_atomic(o.output, text);
  return 0;
}

int replay(int argc, char** argv) {
  probe::ReplayOptions o;
  std::string verb = "write";
  po::options_description opts("mpirun -np N rdmasim-probe replay SCENARIO -o OUT [options]");
  opts.add_options()("help,h", "this help")("output,o", po::value(&o.out_dir),
                                            "output folder (flows.csv)")(
      "bind", po::value(&o.bind)->default_value("127.0.0.1"),
      "tcp: address each rank listens on (0.0.0.0: all, advertised by host name)")(
      "set", po::value(&o.sets)->composing(), "override a scenario value, as rdmasim run")(
      "transport", po::value(&o.transport)->default_value("tcp"), "tcp | verbs")(
      "verb", po::value(&verb)->default_value("write"),
      "verbs: write (RDMA WRITE, the last with immediate) | send")(
      "device,d", po::value(&o.verbs.device), "verbs: RDMA device (default: the first)")(
      "ib-port,i", po::value(&o.verbs.port)->default_value(1), "verbs: device port")(
      "gid-index,x", po::value(&o.verbs.gid_index)->default_value(-1),
      "verbs: GID index (RoCE; -1 = none, InfiniBand)")(
      "mtu,m", po::value(&o.verbs.mtu)->default_value(0),
      "verbs: path MTU (0 = the scenario's fabric.nic.mtu)")("quiet,q", po::bool_switch(&o.quiet),
                                                             "no summary line");
  const po::variables_map vm = cli::parse_options(argc, argv, opts, "scenario", o.scenario);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return 0;
  }
  if (o.transport != "tcp" && o.transport != "verbs") {
    throw scen::InputError("--transport", o.transport, "tcp or verbs");
  }
  if (verb != "write" && verb != "send") throw scen::InputError("--verb", verb, "write or send");
  o.verbs.write = verb == "write";
  if (o.scenario.empty()) throw scen::InputError("SCENARIO", "", "a scenario file");
  if (o.out_dir.empty()) throw scen::InputError("--output", "", "an output folder (-o)");
  if (o.transport == "verbs") {
    probe::validate_verbs_options(o.verbs, true);
    // Each rank looks at its own host before MPI starts: one without a device ends the job.
    const std::string missing = probe::verbs_unavailable();
    if (!missing.empty()) {
      std::fprintf(stderr, "rdmasim-probe: %s\n", missing.c_str());
      return 2;
    }
  }
  return probe::run_replay(&argc, &argv, o);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  const std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  try {
    if (cmd == "lat") return bench(true, argc - 1, argv + 1);
    if (cmd == "bw") return bench(false, argc - 1, argv + 1);
    if (cmd == "replay") return replay(argc - 1, argv + 1);
    std::fprintf(stderr, "rdmasim-probe: unknown command '%s'\n\n%s", cmd.c_str(), kUsage);
    return 2;
  } catch (const scen::InputError& e) {
    std::fprintf(stderr, "rdmasim-probe: error: %s\n", e.what());
    return 2;
  } catch (const po::error& e) {
    std::fprintf(stderr, "rdmasim-probe %s: %s\n", cmd.c_str(), e.what());
    return 2;
  } catch (const probe::ProtocolError& e) {
    std::fprintf(stderr, "rdmasim-probe: protocol error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rdmasim-probe: %s\n", e.what());
    return 1;
  }
}
