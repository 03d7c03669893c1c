// rdmasim topo gen|show: generate topology files and describe them.
#include <boost/program_options.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "scenarios/loader/json_reader.hpp"
#include "scenarios/loader/topology_section.hpp"
#include "scenarios/outputs/write_outputs.hpp"
#include "tools/cli/commands.hpp"
#include "topologies/analysis.hpp"

namespace po = boost::program_options;

namespace cli {
namespace {

void print_summary(const topo::Fabric& f) {
  const auto rt = topo::compute_routes(f);
  const topo::TopologySummary t = topo::summarize(f, rt);
  std::printf("%s: %d hosts, %d switches, %d links\n", f.topo.name.c_str(), t.hosts, t.switches,
              t.links);
  std::printf("  capacity            %sb/s (one direction, all links)\n",
              topo::format_rate(t.total_capacity_bps).c_str());
  std::printf("  bisection           %sb/s, ratio %.3f (1.0 = non-blocking)\n",
              topo::format_rate(t.bisection_bps).c_str(), t.bisection_ratio);
  std::printf("  path diversity      min %d, mean %.2f, max %d equal-cost paths (%d pairs)\n",
              t.min_paths, t.mean_paths, t.max_paths, t.path_pairs_sampled);
  std::printf("  diameter            %d hops host to host\n", t.max_hops);
  std::printf("  switch ports used  ");
  for (const auto& [ports, n] : t.switch_radix_histogram) std::printf(" %d×%d", n, ports);
  std::printf("\n");
}

}  // namespace

int cmd_topo(int argc, char** argv) {
  const std::string usage =
      "usage: rdmasim topo gen leaf-spine|fat-tree|clos3|rail [--key value]... [-o FILE]\n"
      "       rdmasim topo show FILE [--dot OUT.dot]\n"
      "gen keys are those of the scenario generators, e.g. --leaves 4 --spines 2\n"
      "--hosts_per_leaf 8 --host_rate 100Gbps --fabric_rate 400Gbps; --k 16 for fat-tree\n";
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::cout << usage;
    return argc < 2 ? kBadInput : kOk;
  }
  const std::string sub = argv[1];
  if (sub == "gen" || sub == "show") {
    for (int i = 2; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--help" || a == "-h") {
        std::cout << usage;
        return kOk;
      }
    }
  }
  if (sub == "gen") {
    if (argc < 3) {
      std::cerr << usage;
      return kBadInput;
    }
    scen::Json spec;
    spec["generator"] = scen::require_utf8(argv[2], "topo gen");
    std::string out;
    for (int i = 3; i < argc; ++i) {
      std::string key = argv[i];
      if (key == "-o" || key == "--out") {
        if (i + 1 >= argc) throw scen::InputError(key, "", "a file name after " + key);
        out = argv[++i];
        continue;
      }
      if (key.rfind("--", 0) != 0 || i + 1 >= argc) {
        throw scen::InputError(key, key, "--key value pairs (see rdmasim topo --help)");
      }
      key = key.substr(2);
      scen::require_utf8(key, "topo gen");
      for (auto& c : key) c = c == '-' ? '_' : c;
      const std::string v = argv[++i];
      const scen::Json value = scen::parse_cli_value(v, "--" + key);
      spec[key] = value;
    }
    scen::JsonReader r(spec, "topo gen");
    topo::Topology t = scen::read_topology_section(r, ".");
    const topo::Fabric f = scen::build_fabric_checked(t, "topo gen");
    const std::string text = scen::topology_to_json(t).dump(1) + "\n";
    if (out.empty()) {
      std::cout << text;
    } else {
      scen::write_file_atomic(out, text);
      print_summary(f);
      std::printf("written to %s\n", out.c_str());
    }
    return kOk;
  }
  if (sub == "show") {
    po::options_description opts("rdmasim topo show FILE [options]");
    std::string dot, file;
    opts.add_options()("dot", po::value(&dot), "write a Graphviz drawing to this file");
    po::options_description hidden;
    hidden.add_options()("file", po::value(&file));
    po::positional_options_description pos;
    pos.add("file", 1);
    po::options_description all;
    all.add(opts).add(hidden);
    po::variables_map vm;
    po::store(po::command_line_parser(argc - 1, argv + 1).options(all).positional(pos).run(), vm);
    po::notify(vm);
    if (file.empty()) {
      std::cerr << usage;
      return kBadInput;
    }
    scen::Json spec{{"file", file}};
    scen::JsonReader r(spec, "topology");
    const topo::Fabric f = scen::build_fabric_checked(scen::read_topology_section(r, "."), file);
    print_summary(f);
    if (!dot.empty()) {
      scen::write_file_atomic(dot, topo::to_dot(f));
      std::printf("Graphviz drawing written to %s\n", dot.c_str());
    }
    return kOk;
  }
  std::cerr << usage;
  return kBadInput;
}

}  // namespace cli
