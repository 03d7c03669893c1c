#include "scenarios/outputs/collectives_table.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

#include "scenarios/outputs/csv_cell.hpp"

namespace scen {
namespace {

const char* type_name(int64_t bytes) {
  switch (bytes) {
    case 1:
      return "int8";
    case 2:
      return "half";
    case 8:
      return "double";
    default:
      return "float";
  }
}

const char* redop(models::CollectiveOp op) {
  return op == models::CollectiveOp::AllReduce || op == models::CollectiveOp::ReduceScatter
             ? "sum"
             : "none";
}

}  // namespace

std::string collectives_table(const std::vector<models::CollectiveResult>& rows,
                              const std::vector<models::CollectiveSpec>& specs) {
  std::string out;
  char line[320];
  for (size_t c = 0; c < specs.size(); ++c) {
    const models::CollectiveSpec& spec = specs[c];
    std::snprintf(line, sizeof line,
                  "# collective %zu: %s on %d ranks, algorithm %s, protocol %s, %d channel(s)\n", c,
                  models::to_string(spec.op), spec.ranks(), models::to_string(spec.algorithm),
                  models::to_string(spec.protocol), spec.channels);
    out += line;
    // nccl-tests' preamble: its settings line and the ranks (a GPU rank on its server, by its
    // index there; a plain host as its own node), which tools reading nccl-tests logs use.
    static const std::map<models::CollectiveOp, const char*> kPerf = {
        {models::CollectiveOp::AllReduce, "all_reduce_perf"},
        {models::CollectiveOp::AllGather, "all_gather_perf"},
        {models::CollectiveOp::ReduceScatter, "reduce_scatter_perf"},
        {models::CollectiveOp::AllToAll, "alltoall_perf"},
        {models::CollectiveOp::Broadcast, "broadcast_perf"},
        {models::CollectiveOp::SendRecv, "sendrecv_perf"}};
    out += std::string("# Collective test starting: ") + kPerf.at(spec.op) + "\n";
    std::snprintf(line, sizeof line,
                  "# nThread 1 nGpus 1 minBytes %lld maxBytes %lld step: %lld(factor) warmup "
                  "iters: 0 iters: %d agg iters: 1 validation: 0 graph: 0\n#\n# Using devices\n",
                  static_cast<long long>(spec.min_bytes), static_cast<long long>(spec.max_bytes),
                  static_cast<long long>(spec.factor), spec.iterations);
    out += line;
    std::map<int, int> next_device;
    for (int rank = 0; rank < spec.ranks(); ++rank) {
      const int server = spec.rank_server.empty() ? -1 : spec.rank_server[rank];
      const std::string host = server >= 0 ? "n" + std::to_string(server) : spec.rank_names[rank];
      const int device = server >= 0 ? next_device[server]++ : 0;
      std::snprintf(line, sizeof line,
                    "#  Rank %2d Group  0 Pid %6d on %10s device %2d [0000:00:00] %s\n", rank, rank,
                    host.c_str(), device, spec.rank_names[rank].c_str());
      out += line;
    }
    out +=
        "#\n"
        "#                                                              out-of-place             "
        "          in-place          \n"
        "#       size         count      type   redop    root     time   algbw   busbw #wrong  "
        "   time   algbw   busbw #wrong\n"
        "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)         "
        "   (us)  (GB/s)  (GB/s)       \n";
    double busbw_sum = 0;
    int n = 0;
    int64_t nvlink = 0, network = 0;
    std::string picks;
    for (const auto& r : rows) {
      if (r.collective != c) continue;
      const int root = r.op == models::CollectiveOp::Broadcast ? spec.root : -1;
      // The simulation has no in-place variant (the buffers' placement changes no traffic):
      // the in-place columns repeat the out-of-place ones; nothing is ever wrong.
      std::snprintf(line, sizeof line,
                    "%12lld  %12lld  %8s  %6s  %6d  %7.2f  %6.2f  %6.2f  %5d  %7.2f  %6.2f  %6.2f  "
                    "%5d\n",
                    static_cast<long long>(r.size_bytes), static_cast<long long>(r.count),
                    type_name(spec.type_bytes), redop(r.op), root, r.time.us(), r.algbw_gbps(),
                    r.busbw_gbps(), 0, r.time.us(), r.algbw_gbps(), r.busbw_gbps(), 0);
      out += line;
      std::snprintf(line, sizeof line, "#   %12lld B: %s/%s\n",
                    static_cast<long long>(r.size_bytes), models::to_string(r.algorithm),
                    models::to_string(r.protocol));
      picks += line;
      busbw_sum += r.busbw_gbps();
      nvlink += r.nvlink_bytes;
      network += r.network_bytes;
      ++n;
    }
    out += "# Out of bounds values : 0 OK\n";
    std::snprintf(line, sizeof line, "# Avg bus bandwidth    : %g\n#\n",
                  n > 0 ? busbw_sum / n : 0.0);
    out += line;
    out += "# Algorithm/protocol by size (" + std::to_string(spec.channels) + " channels):\n";
    out += picks;
    if (nvlink > 0) {
      std::snprintf(line, sizeof line,
                    "# Bytes over NVLink    : %lld, over the NICs: %lld (all sizes)\n",
                    static_cast<long long>(nvlink), static_cast<long long>(network));
      out += line;
    }
    out += "#\n";
  }
  return out;
}

std::string collectives_csv(const std::vector<models::CollectiveResult>& rows,
                            const std::vector<models::CollectiveSpec>& specs) {
  std::string out =
      "collective,op,ranks,algorithm,protocol,size_bytes,count,type_bytes,time_us,algbw_GBps,"
      "busbw_GBps,messages,wire_bytes,nvlink_bytes,network_bytes,channels,chunk_bytes\n";
  char line[384];
  for (const auto& r : rows) {
    std::snprintf(line, sizeof line,
                  "%u,%s,%d,%s,%s,%lld,%lld,%lld,%.3f,%.3f,%.3f,%llu,%lld,%lld,%lld,%d,%lld\n",
                  r.collective, models::to_string(r.op), r.ranks, models::to_string(r.algorithm),
                  models::to_string(r.protocol), static_cast<long long>(r.size_bytes),
                  static_cast<long long>(r.count),
                  static_cast<long long>(specs[r.collective].type_bytes), r.time.us(),
                  r.algbw_gbps(), r.busbw_gbps(), static_cast<unsigned long long>(r.messages),
                  static_cast<long long>(r.wire_bytes), static_cast<long long>(r.nvlink_bytes),
                  static_cast<long long>(r.network_bytes),
                  std::max(1, specs[r.collective].channels), static_cast<long long>(r.chunk_bytes));
    out += line;
  }
  return out;
}

std::string training_summary(const RunOutcome& out) {
  std::string s;
  char line[256];
  for (size_t i = 0; i < out.training_steps.size(); ++i) {
    const models::TrainingStepResult& t = out.training_steps[i];
    std::snprintf(line, sizeof line,
                  "# training step %zu: %.2f us (compute %.2f, communication %.2f in %d buckets, "
                  "exposed %.2f), MFU %.2f %%\n",
                  i, t.step.us(), t.compute.us(), t.communication.us(), t.buckets, t.exposed.us(),
                  100.0 * t.mfu);
    s += line;
    if (!t.groups.empty()) {
      std::snprintf(line, sizeof line, "#   pipeline bubble %.2f us\n", t.bubble.us());
      s += line;
    }
    for (const models::ParallelGroupResult& g : t.groups) {
      std::snprintf(line, sizeof line,
                    "#   %-8s %d groups of %d GPUs: %.1f calls, %.0f bytes per GPU; "
                    "communication %.2f us, waiting for peers %.2f us; MFU without it %.2f %%\n",
                    g.kind.c_str(), g.groups, g.ranks, g.calls, g.bytes, g.communication.us(),
                    g.wait.us(), 100.0 * g.mfu_without);
      s += line;
    }
  }
  return s;
}

std::string chakra_summary(const RunOutcome& out) {
  if (out.chakra_ranks.empty()) return "";
  size_t slowest = 0;
  double compute = 0, exposed = 0;
  for (size_t i = 0; i < out.chakra_ranks.size(); ++i) {
    const models::ChakraRankResult& r = out.chakra_ranks[i];
    if (r.iteration > out.chakra_ranks[slowest].iteration) slowest = i;
    compute += r.compute.us();
    exposed += r.exposed.us();
  }
  const double n = static_cast<double>(out.chakra_ranks.size());
  char line[320];
  std::snprintf(line, sizeof line,
                "# chakra: %zu ranks, iteration %.2f us (slowest: rank %zu, %s); per rank compute "
                "%.2f us, exposed communication %.2f us (means); %zu collectives\n",
                out.chakra_ranks.size(), out.chakra_ranks[slowest].iteration.us(), slowest,
                out.chakra_ranks[slowest].name.c_str(), compute / n, exposed / n,
                out.chakra_collectives.size());
  return line;
}

std::string chakra_csv(const RunOutcome& out) {
  std::string s = "rank,name,iteration_us,compute_us,exposed_us,nodes,collectives,sends,recvs\n";
  char line[256];
  for (size_t i = 0; i < out.chakra_ranks.size(); ++i) {
    const models::ChakraRankResult& r = out.chakra_ranks[i];
    std::snprintf(line, sizeof line, "%zu,%s,%.3f,%.3f,%.3f,%u,%u,%u,%u\n", i,
                  csv_cell(r.name).c_str(), r.iteration.us(), r.compute.us(), r.exposed.us(),
                  r.nodes, r.collectives, r.sends, r.recvs);
    s += line;
  }
  return s;
}

std::string training_groups_csv(const RunOutcome& out) {
  std::string s =
      "step,group,groups,ranks,calls_per_gpu,bytes_per_gpu,communication_us,wait_us,"
      "mfu_without\n";
  char line[256];
  for (size_t i = 0; i < out.training_steps.size(); ++i) {
    for (const models::ParallelGroupResult& g : out.training_steps[i].groups) {
      std::snprintf(line, sizeof line, "%zu,%s,%d,%d,%.3f,%.0f,%.3f,%.3f,%.5f\n", i, g.kind.c_str(),
                    g.groups, g.ranks, g.calls, g.bytes, g.communication.us(), g.wait.us(),
                    g.mfu_without);
      s += line;
    }
  }
  return s;
}

std::string training_csv(const RunOutcome& out) {
  std::string s =
      "step,step_us,compute_us,communication_us,exposed_us,last_bucket_tail_us,buckets,mfu\n";
  char line[256];
  for (size_t i = 0; i < out.training_steps.size(); ++i) {
    const models::TrainingStepResult& t = out.training_steps[i];
    std::snprintf(line, sizeof line, "%zu,%.3f,%.3f,%.3f,%.3f,%.3f,%d,%.5f\n", i, t.step.us(),
                  t.compute.us(), t.communication.us(), t.exposed.us(), t.last_bucket_tail.us(),
                  t.buckets, t.mfu);
    s += line;
  }
  return s;
}

}  // namespace scen
