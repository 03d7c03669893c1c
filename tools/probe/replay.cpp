#include "tools/probe/replay.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "scenarios/builder/build_network.hpp"
#include "scenarios/loader/input_error.hpp"
#include "scenarios/loader/scenario.hpp"
#include "scenarios/outputs/write_outputs.hpp"
#include "scenarios/run/run_scenario.hpp"
#include "tools/probe/replay_transport.hpp"

namespace probe {

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
    FirstError err;
    const std::vector<Completion> done = o.transport == "verbs"
                                             ? replay_verbs(s, rank, size, o, err)
                                             : replay_tcp(s, rank, size, o, err);
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
            "replayed %s on %d ranks over %s: %zu flows, %d rank(s) with errors\n"
            "  outputs in %s/flows.csv\n",
            s.name.c_str(), size, o.transport.c_str(), s.flows.size(), failures, o.out_dir.c_str());
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
