#include "tools/calibration/collective_experiments.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "models/collectives/collective_spec.hpp"
#include "models/collectives/nccl_chunking.hpp"
#include "scenarios/loader/input_error.hpp"
#include "scenarios/loader/scenario.hpp"
#include "scenarios/run/run_scenario.hpp"

namespace calib {
namespace {

// nccl-tests' names for its collectives -> a scenario's "op".
std::string scenario_op(const std::string& nccl, const std::string& file) {
  static const std::map<std::string, std::string> ops = {
      {"all_reduce", "all_reduce"},         {"all_gather", "all_gather"},
      {"reduce_scatter", "reduce_scatter"}, {"alltoall", "all_to_all"},
      {"broadcast", "broadcast"},           {"sendrecv", "send_recv"}};
  const auto it = ops.find(nccl);
  if (it == ops.end()) {
    throw scen::InputError(file, nccl,
                           "a collective rdmasim models (all_reduce, all_gather, reduce_scatter, "
                           "alltoall, broadcast, sendrecv)");
  }
  return it->second;
}

}  // namespace

Experiment experiment_from_nccl(const traces::NcclTrace& t, const ClusterSpec& c, bool in_place) {
  if (!c.has_gpus()) {
    throw scen::InputError(c.file + ": gpu_servers", "(absent)",
                           "GPU servers to run the nccl-tests trace " + t.file + " (" +
                               t.collective + ") on: \"gpu_servers\": {\"preset\": \"dgx-h100\"}");
  }
  Experiment e;
  e.file = t.file;
  e.collective = true;
  e.latency = true;  // times, like a latency table
  e.in_place = in_place;
  e.op = scenario_op(t.collective, t.file);
  e.min_bytes = 0;
  std::map<std::string, int> server_of_host;
  std::set<std::string> seen;
  std::vector<traces::NcclRank> ranks = t.ranks;
  std::sort(ranks.begin(), ranks.end(),
            [](const auto& a, const auto& b) { return a.rank < b.rank; });
  for (size_t i = 0; i < ranks.size(); ++i) {
    const traces::NcclRank& r = ranks[i];
    const std::string where = t.file + ": rank " + std::to_string(r.rank);
    if (r.rank != static_cast<int>(i)) {
      throw scen::InputError(where, std::to_string(r.rank),
                             "ranks 0 .. n-1, each once (\"Using devices\" lines)");
    }
    const auto [it, added] =
        server_of_host.emplace(r.host, static_cast<int>(server_of_host.size()));
    (void)added;
    if (it->second >= c.nodes) {
      throw scen::InputError(where, r.host,
                             "at most the cluster's " + std::to_string(c.nodes) + " node(s)");
    }
    if (r.device >= c.gpus_per_node) {
      throw scen::InputError(where, "device " + std::to_string(r.device),
                             "a GPU below gpus_per_node = " + std::to_string(c.gpus_per_node));
    }
    const std::string name = "n" + std::to_string(it->second) + "g" + std::to_string(r.device);
    if (!seen.insert(name).second) {
      throw scen::InputError(where, r.host + " device " + std::to_string(r.device),
                             "a GPU no other rank uses");
    }
    e.ranks.push_back(name);
  }
  if (e.ranks.empty()) {
    // No "Using devices" lines: every GPU of the cluster, node-major (nccl-tests' order).
    for (int64_t s = 0; s < c.nodes; ++s) {
      for (int64_t g = 0; g < c.gpus_per_node; ++g) {
        e.ranks.push_back("n" + std::to_string(s) + "g" + std::to_string(g));
      }
    }
  }
  e.servers = std::max<int>(1, static_cast<int>(server_of_host.size()));
  if (server_of_host.empty()) e.servers = static_cast<int>(c.nodes);
  for (const traces::NcclRow& r : t.rows) {
    if (r.bytes == 0) continue;  // nccl-tests -b 0: nothing moves
    const traces::NcclResult& res = in_place ? r.in_place : r.out_of_place;
    if (res.time_us <= 0) {
      throw scen::InputError(t.file + ":" + std::to_string(r.line), "time 0",
                             "a positive time (us)");
    }
    e.bytes.push_back(r.bytes);
    e.iterations.push_back(1);
    e.measured.push_back(res.time_us);
    if (!r.type.empty()) e.type = r.type;
    if (r.root >= 0) e.root = r.root;
  }
  if (e.bytes.empty()) {
    throw scen::InputError(t.file, "no size above 0 B", "at least one size to fit");
  }
  return e;
}

SteadyLine steady_line(double s1, double t1, double s2, double t2) {
  if (!(s2 > s1) || !(t2 > t1)) {
    throw std::logic_error("steady_line: sizes and times must grow");
  }
  SteadyLine l;
  l.bw = (s2 - s1) / (t2 - t1);
  l.a = t2 - s2 / l.bw;
  return l;
}

std::vector<double> simulate_collective(const ClusterSpec& c, const FabricParams& p,
                                        const Experiment& e, const std::vector<bool>& use,
                                        std::map<int64_t, std::string>* ran) {
  scen::Json j = cluster_scenario(c, p, 0);
  scen::Json coll = c.collective.is_object() ? c.collective : scen::Json::object();
  if (!e.algorithm.empty()) coll["algorithm"] = e.algorithm;
  if (!e.protocol.empty()) coll["protocol"] = e.protocol;
  // As nccl-tests runs NCCL by default: its choice of protocol too (a scenario's default is
  // Simple).
  if (!coll.contains("protocol")) coll["protocol"] = "auto";
  coll["op"] = e.op;
  coll["type"] = e.type;
  coll["ranks"] = e.ranks;
  coll["size"] = e.bytes.front();
  if (e.op == "broadcast") coll["root"] = e.root;
  const scen::Json overlay = params_overlay(c, p);  // NCCL's costs and their scales
  for (const auto& [k, v] : overlay.at("workload").at("collective").items()) coll[k] = v;
  j["workload"] = {{"collective", coll}};
  scen::Scenario s = scen::load_scenario_json(j, c.base_dir, {}, c.file);
  if (s.collectives.size() != 1) throw std::logic_error("one collective expected");

  // Which sizes to simulate: the selected ones up to the bound; beyond it, the two largest
  // sizes of the trace within the bound carry the steady-state line.
  std::set<int64_t> direct;
  bool beyond = false;
  for (size_t i = 0; i < e.bytes.size(); ++i) {
    if (!use.empty() && !use[i]) continue;
    if (e.bytes[i] <= e.max_simulated_bytes) {
      direct.insert(e.bytes[i]);
    } else {
      beyond = true;
    }
  }
  std::vector<int64_t> within;
  for (int64_t b : e.bytes) {
    if (b <= e.max_simulated_bytes) within.push_back(b);
  }
  if (beyond) {
    if (within.size() < 2) {
      throw scen::InputError(e.file,
                             std::to_string(within.size()) + " size(s) up to " +
                                 std::to_string(e.max_simulated_bytes) + " B",
                             "two sizes or more within the simulated bound "
                             "(--nccl-max-simulated), for the steady-state line");
    }
    direct.insert(within[within.size() - 2]);
    direct.insert(within.back());
  }
  std::map<int64_t, double> time_us;
  models::CollectiveAlgorithm largest = models::CollectiveAlgorithm::Ring;
  auto run = [&](int64_t b) {
    s.collectives[0].min_bytes = s.collectives[0].max_bytes = b;
    const scen::RunOutcome out = scen::run_scenario(s);
    if (out.collectives.size() != 1) {
      throw std::logic_error(e.file + ": the simulated collective did not complete");
    }
    largest = out.collectives[0].algorithm;
    if (ran) {
      (*ran)[b] = std::string(models::to_string(out.collectives[0].algorithm)) + "/" +
                  models::to_string(out.collectives[0].protocol);
    }
    return static_cast<double>(out.collectives[0].time.ps) / 1e6;
  };
  for (int64_t b : direct) time_us[b] = run(b);
  // The steady-state line through the two largest simulated sizes, one per chunk: NCCL sizes
  // the chunks of NVLS and NVLS-tree per call (nccl_chunking.hpp), and a larger call on larger
  // chunks runs at another rate. Its line is drawn through the same two sizes run on its chunk.
  std::map<int64_t, SteadyLine> lines;  // by NCCL's chunk (0: the sizes' own)
  const int64_t s1 = beyond ? within[within.size() - 2] : 0, s2 = beyond ? within.back() : 0;
  const models::CollectiveSpec spec = s.collectives[0];
  const models::CollectiveAlgorithm at_s2 = largest;  // what the largest simulated size ran
  auto chunk_of = [&](int64_t b) { return models::nccl_nvls_call_chunk(spec, at_s2, b); };
  auto line_for = [&](int64_t bytes) -> const SteadyLine& {
    int64_t chunk = chunk_of(bytes);
    if (chunk == chunk_of(s1) && chunk == chunk_of(s2)) chunk = 0;
    auto it = lines.find(chunk);
    if (it != lines.end()) return it->second;
    double t1 = time_us[s1], t2 = time_us[s2];
    if (chunk > 0) {  // the two sizes again, on the larger call's chunk
      models::CollectiveSpec& forced = s.collectives[0];
      forced.chunk_bytes = forced.nvls.chunk_bytes = forced.nvls_tree.chunk_bytes = chunk;
      t1 = run(s1);
      t2 = run(s2);
      forced = spec;
    }
    return lines
        .emplace(chunk, steady_line(static_cast<double>(s1), t1, static_cast<double>(s2), t2))
        .first->second;
  };
  std::vector<double> out;
  for (size_t i = 0; i < e.bytes.size(); ++i) {
    if (!use.empty() && !use[i]) continue;
    const auto it = time_us.find(e.bytes[i]);
    out.push_back(it != time_us.end() ? it->second
                                      : line_for(e.bytes[i]).at(static_cast<double>(e.bytes[i])));
    if (ran && it == time_us.end()) (*ran)[e.bytes[i]] = (*ran)[s2];
  }
  return out;
}

}  // namespace calib
