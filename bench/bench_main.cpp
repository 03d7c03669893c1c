// rdmasim_bench: runs named scenarios and prints wall time, events, events/s, packet-hops/s,
// wall time per simulated millisecond and peak RSS. Not a test: nothing here asserts.
//
//   build/bin/rdmasim_bench                       the shipped benchmark scenarios
//   build/bin/rdmasim_bench file.json ...         the given scenario files
//   build/bin/rdmasim_bench --gpu1024             only the 1,024-GPU all-reduce
//   build/bin/rdmasim_bench --shipped             every shipped scenario (each fabric of a
//                                                 list) against its wall-time budget
//                                                 (bench/shipped_budgets.txt); exit 1 if one
//                                                 is over
//   RDMASIM_SHARED=../shared build/bin/rdmasim_bench --peers
//                                                 the peers' exact workloads, via the importers
//   build/bin/rdmasim_bench --partitions N [...]  instead of running them, how the scenarios'
//                                                 fabrics split into N partitions (threads):
//                                                 lookahead, load balance, links cut
//   build/bin/rdmasim_bench --threads N [...]     run them on N threads (`rdmasim run
//                                                 --threads`; one for a scenario a split
//                                                 cannot run yet, marked so)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "scenarios/import/hpcc_import.hpp"
#include "scenarios/import/htsim_import.hpp"
#include "scenarios/loader/input_error.hpp"
#include "scenarios/loader/scenario.hpp"
#include "scenarios/run/run_scenario.hpp"
#include "sim/huge_pages.hpp"
#include "topologies/partition.hpp"

namespace {

std::string slurp(const std::string& f) {
  std::ifstream in(f);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

double run_report(const std::string& label, const scen::Scenario& s, int threads) {
  scen::RunOptions options;
  options.threads = threads;
  std::string name = label;
  scen::RunOutcome o;
  try {
    o = scen::run_scenario(s, options);
  } catch (const scen::InputError&) {
    if (threads == 1) throw;
    o = scen::run_scenario(s);  // collectives, training, Chakra or TCP: not split yet
    name += " [1 thread]";
  }
  const double sim_ms = o.end_time.seconds() * 1e3;
  std::printf(
      "%-34s wall %8.3f s  events %11llu  %6.2f M ev/s  hops %10llu  %6.2f M hops/s  "
      "%8.3f s/sim-ms  rss %6.1f MB  flows %s/%s\n",
      name.c_str(), o.wall_seconds, static_cast<unsigned long long>(o.events),
      o.events / o.wall_seconds / 1e6, static_cast<unsigned long long>(o.packet_hops),
      o.packet_hops / o.wall_seconds / 1e6, sim_ms > 0 ? o.wall_seconds / sim_ms : 0.0,
      o.peak_rss_kb / 1024.0, o.results["flows_completed"].dump().c_str(),
      o.results["flows"].dump().c_str());
  std::fflush(stdout);
  return o.wall_seconds;
}

// How `s`'s fabric splits into `wanted` partitions (topologies/partition.hpp): the figures that
// bound a run on threads — the lookahead (a window's length), the heaviest partition against the
// mean, and the links between partitions (each window's mailbox traffic comes over them).
void partition_report(const std::string& label, const scen::Scenario& s, int wanted) {
  const topo::Partitioning p = topo::partition_fabric(s.fabric, wanted);
  int64_t total = 0, heaviest = 0;
  for (int64_t l : p.load) {
    total += l;
    heaviest = std::max(heaviest, l);
  }
  size_t cut = 0;
  for (const topo::Link& l : s.fabric.topo.links) {
    cut += p.partition[static_cast<size_t>(l.a)] != p.partition[static_cast<size_t>(l.b)];
  }
  std::printf(
      "%-34s partitions %d of %d  lookahead %9.3f ns  heaviest/mean %5.3f  links cut %zu of %zu\n",
      label.c_str(), p.count, wanted, p.lookahead_ps / 1000.0,
      static_cast<double>(heaviest) * p.count / static_cast<double>(total), cut,
      s.fabric.topo.links.size());
  std::fflush(stdout);
}

// bench/shipped_budgets.txt: "<file> <seconds>" per line, '#' comments. The README's table of
// shipped scenarios quotes the same budgets.
std::map<std::string, double> read_budgets(const std::string& file) {
  std::map<std::string, double> budgets;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string name;
    double seconds = 0;
    if (!(ls >> name) || name[0] == '#') continue;
    if (!(ls >> seconds)) throw std::runtime_error(file + ": no budget for " + name);
    budgets[name] = seconds;
  }
  return budgets;
}

// Every scenarios/*.json, each fabric of a list in turn, against its budget. Returns the number
// of scenarios over budget or without one.
int run_shipped() {
  const auto budgets = read_budgets(std::string(RDMASIM_BENCH_DIR) + "/shipped_budgets.txt");
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(RDMASIM_SCENARIO_DIR)) {
    if (e.is_regular_file() && e.path().extension() == ".json") {
      names.push_back(e.path().filename().string());
    }
  }
  std::sort(names.begin(), names.end());
  int failures = 0;
  for (const std::string& name : names) {
    const std::string file = std::string(RDMASIM_SCENARIO_DIR) + "/" + name;
    const scen::Scenario first = scen::load_scenario_file(file);
    double wall = 0;
    if (first.fabrics.size() > 1) {
      for (const std::string& f : first.fabrics) {
        scen::LoadOptions o;
        o.fabric = f;
        wall += run_report(name + " [" + f + "]", scen::load_scenario_file(file, o), 1);
      }
    } else {
      wall += run_report(name, first, 1);
    }
    const auto it = budgets.find(name);
    if (it == budgets.end()) {
      std::printf("  %s has no budget in shipped_budgets.txt\n", name.c_str());
      ++failures;
    } else if (wall > it->second) {
      std::printf("  OVER BUDGET: %s took %.2f s, budget %.0f s\n", name.c_str(), wall, it->second);
      ++failures;
    }
  }
  std::printf("%zu shipped scenarios, %d over budget or without one\n", names.size(), failures);
  return failures;
}

// The RoCE settings the peers ran these workloads with (../shared/peers/README.md): the htsim
// permutation with PFC (XOFF at 15 packets of 4,000 B, XON at 12); the HPCC WebSearch with
// DCQCN, ECN and dynamic-threshold PFC.
scen::LoadOptions roce_pfc() {
  scen::LoadOptions o;
  o.sets = {"fabric.pfc.enabled=true", "fabric.pfc.xoff=60000B", "fabric.pfc.xon_offset=12000B"};
  return o;
}

// The 1,024-host permutation at 400 Gb/s: RoCE as shipped, and InfiniBand NDR with the same MTU
// and ACKs and 0 ns switches (credit stalls under 1 us left out of credits.csv).
scen::LoadOptions roce_400g() {
  scen::LoadOptions o;
  o.sets = {"topology.rate=400Gbps"};
  return o;
}

scen::LoadOptions infiniband_ndr() {
  scen::LoadOptions o;
  o.sets = {"fabric=infiniband",
            "infiniband.preset=ndr",
            "infiniband.nic.mtu=4000B",
            "infiniband.nic.ack_every=1",
            "infiniband.nic.rto=1ms",
            "infiniband.switch.latency=0ns",
            "infiniband.credit_log_min_stall=1us"};
  return o;
}

scen::LoadOptions roce_dcqcn() {
  scen::LoadOptions o;
  o.sets = {"fabric.pfc.enabled=true",   "fabric.switch.threshold_mode=dynamic",
            "fabric.switch.alpha=1/8",   "fabric.ecn.enabled=true",
            "fabric.dcqcn.enabled=true", "fabric.dcqcn.preset=hpcc-ns3"};
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  sim::reexec_with_huge_pages(argv);  // as `rdmasim run` does (docs/cli.md, "Huge pages")
  std::vector<std::string> files;
  bool peers = false;
  bool gpu1024_only = false;
  bool shipped = false;
  int partitions = 0;  // > 0: print the partitioning instead of running
  int threads = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--threads") {
      if (i + 1 >= argc || std::atoi(argv[i + 1]) < 1 || std::atoi(argv[i + 1]) > 1024) {
        std::fprintf(stderr, "rdmasim_bench: --threads needs a count from 1 to 1024\n");
        return 2;
      }
      threads = std::atoi(argv[++i]);
      continue;
    }
    if (a == "--partitions") {
      if (i + 1 >= argc || std::atoi(argv[i + 1]) < 1) {
        std::fprintf(stderr, "rdmasim_bench: --partitions needs a count of at least 1\n");
        return 2;
      }
      partitions = std::atoi(argv[++i]);
      continue;
    }
    if (a == "--help" || a == "-h") {
      std::printf(
          "usage: rdmasim_bench [FILE.json...] [--peers] [--shipped] [--gpu1024] [--partitions N]\n"
          "                     [--threads N]\n"
          "  (no argument)  the named benchmark scenarios: events/s, packet-hops/s, wall time\n"
          "  FILE.json...   these scenarios instead\n"
          "  --peers        the htsim and HPCC peers' scenarios (needs RDMASIM_SHARED)\n"
          "  --shipped      every shipped scenario against bench/shipped_budgets.txt\n"
          "  --gpu1024      the 1,024-GPU all-reduce (bench/allreduce-1024gpu.json)\n"
          "  --partitions N instead of running them, the scenarios' fabrics split into N\n"
          "                 partitions: lookahead, load balance, links cut\n"
          "  --threads N    run them on N threads (one where a split cannot run yet)\n");
      return 0;
    }
    if (a.rfind("--", 0) == 0 && a != "--peers" && a != "--shipped" && a != "--gpu1024") {
      std::fprintf(stderr, "rdmasim_bench: unknown option %s (see --help)\n", a.c_str());
      return 2;
    }
    if (a == "--peers") {
      peers = true;
    } else if (a == "--shipped") {
      shipped = true;
    } else if (a == "--gpu1024") {
      gpu1024_only = true;
    } else {
      files.push_back(a);
    }
  }
  const auto report = [partitions, threads](const std::string& label, const scen::Scenario& s) {
    if (partitions > 0) {
      partition_report(label, s, partitions);
      return 0.0;
    }
    return run_report(label, s, threads);
  };
  try {
    if (shipped) return run_shipped() == 0 ? 0 : 1;
    if (peers) {
      const char* shared = std::getenv("RDMASIM_SHARED");
      if (shared == nullptr) {
        std::fprintf(stderr, "--peers needs RDMASIM_SHARED (the ../shared folder)\n");
        return 2;
      }
      const std::string d = shared;
      const std::string htsim = d + "/peers/htsim/perm_1024n_1024c_0u_2000000b.cm";
      const scen::Json perm = scen::import_htsim(slurp(htsim), htsim, 16, "perm1024");
      report("htsim perm_1024n 2MB (k=16)", scen::load_scenario_json(perm, ".", {}));
      report("htsim perm_1024n 2MB +PFC", scen::load_scenario_json(perm, ".", roce_pfc()));
      const std::string topo = d + "/peers/hpcc/fat.txt";
      const std::string flows = d + "/peers/hpcc/websearch_320h_30pct_0.001s_seed42.txt";
      const scen::Json web = scen::import_hpcc(slurp(topo), topo, slurp(flows), flows, "websearch");
      report("hpcc websearch 1ms (320 hosts)", scen::load_scenario_json(web, ".", {}));
      report("hpcc websearch 1ms +DCQCN", scen::load_scenario_json(web, ".", roce_dcqcn()));
      return 0;
    }
    // One 8 MiB hierarchical all-reduce on 1,024 H100 GPUs (128 dgx-h100 servers, 8 rails at
    // 400 Gb/s): 548,864 collective messages, whose transport slots are reused.
    const std::string gpu1024 = std::string(RDMASIM_BENCH_DIR) + "/allreduce-1024gpu.json";
    if (gpu1024_only) {
      report("allreduce 8MiB 1024 GPUs", scen::load_scenario_file(gpu1024));
      return 0;
    }
    if (files.empty()) {
      const std::string dir = RDMASIM_SCENARIO_DIR;
      files = {dir + "/quickstart.json", dir + "/incast-8to1.json",
               dir + "/permutation-fattree-1024.json", dir + "/websearch-fattree.json"};
      for (const auto& f : files)
        report(f.substr(f.find_last_of('/') + 1), scen::load_scenario_file(f));
      // The RoCE benchmarks of the issue tracker (settings in roce_pfc / roce_dcqcn).
      report("permutation-fattree-1024 +PFC",
             scen::load_scenario_file(dir + "/permutation-fattree-1024.json", roce_pfc()));
      report("websearch-fattree +DCQCN hpcc-ns3",
             scen::load_scenario_file(dir + "/websearch-fattree.json", roce_dcqcn()));
      report("permutation-fattree-1024 400G RoCE",
             scen::load_scenario_file(dir + "/permutation-fattree-1024.json", roce_400g()));
      report("permutation-fattree-1024 400G InfiniBand",
             scen::load_scenario_file(dir + "/permutation-fattree-1024.json", infiniband_ndr()));
      report("allreduce 8MiB 1024 GPUs", scen::load_scenario_file(gpu1024));
      return 0;
    }
    for (const auto& f : files)
      report(f.substr(f.find_last_of('/') + 1), scen::load_scenario_file(f));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
