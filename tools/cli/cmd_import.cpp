// rdmasim import hpcc|htsim: bring the peers' scenario files over as rdmasim scenarios.
#include <boost/program_options.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "scenarios/import/hpcc_config.hpp"
#include "scenarios/import/hpcc_import.hpp"
#include "scenarios/import/htsim_import.hpp"
#include "scenarios/loader/input_error.hpp"
#include "scenarios/outputs/write_outputs.hpp"
#include "tools/cli/commands.hpp"

namespace po = boost::program_options;

namespace cli {
namespace {

std::string slurp(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw scen::InputError(file, "", "a readable file");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The imported scenario to `out` (written whole, then renamed), or to stdout.
int write_scenario(const scen::Json& scenario, const std::string& out) {
  const std::string text = scenario.dump(1) + "\n";
  if (out.empty()) {
    std::cout << text;
  } else {
    scen::write_file_atomic(out, text);
    std::cerr << "scenario written to " << out << "\n";
  }
  return kOk;
}

// A file the config names: as the simulator, run from its own folder, would find it — next
// to the config, else in the folder above (the peer's layout: configs/ beside the inputs).
std::string config_relative(const std::string& config, const std::string& key,
                            const scen::HpccConfig& c) {
  const scen::HpccConfigEntry* e = c.find(key);
  if (e == nullptr || e->words.empty()) {
    throw scen::InputError(config, key, key + " in the config, or TOPOLOGY and FLOWS arguments");
  }
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(config).parent_path();
  for (const fs::path& base : {dir, dir.parent_path()}) {
    const fs::path p = base / e->words[0];
    if (fs::exists(p)) return p.string();
  }
  throw scen::InputError(config + ":" + std::to_string(e->line), e->words[0],
                         "a " + key + " next to the config or in the folder above it");
}

int import_hpcc_with_config(const std::vector<std::string>& args, const std::string& config,
                            const std::string& out, std::string name) {
  const scen::HpccConfig c = scen::read_hpcc_config(slurp(config), config);
  std::string topo, flows;
  if (args.size() == 3) {
    topo = args[1];
    flows = args[2];
  } else if (args.size() == 1) {
    topo = config_relative(config, "TOPOLOGY_FILE", c);
    flows = config_relative(config, "FLOW_FILE", c);
  } else {
    throw scen::InputError("import hpcc", "", "TOPOLOGY and FLOWS files, or neither with --config");
  }
  if (name.empty()) name = std::filesystem::path(config).stem().string();
  scen::Json scenario = scen::import_hpcc(slurp(topo), topo, slurp(flows), flows, name);
  const scen::HpccConfigReport report = scen::apply_hpcc_config(c, scenario);
  std::string description = "Imported from the ns-3 HPCC simulator's " + topo + ", " + flows +
                            " and config " + config + ".";
  for (const std::string& w : report.warnings) {
    std::cerr << "warning: " << w << "\n";
    description += " Not as the peer: " + w + ".";
  }
  for (const std::string& n : report.notes) std::cerr << "note: " << n << "\n";
  scenario["description"] = description;
  return write_scenario(scenario, out);
}

}  // namespace

int cmd_import(int argc, char** argv) {
  po::options_description opts(
      "rdmasim import hpcc TOPOLOGY FLOWS [--config CONFIG] [options]\n"
      "rdmasim import hpcc --config CONFIG [options]   (TOPOLOGY_FILE and FLOW_FILE of the "
      "config)\n"
      "rdmasim import htsim MATRIX --fat-tree-k K [options]");
  std::string out, name, config;
  int k = 0;
  opts.add_options()("help,h", "this help")("out,o", po::value(&out),
                                            "scenario file to write (default: stdout)")(
      "name", po::value(&name), "scenario name (default: from the input file name)")(
      "fat-tree-k", po::value(&k), "htsim: the fat-tree's k (1,024 hosts = 16)")(
      "config", po::value(&config),
      "hpcc: the simulator's config file (CC, ECN, buffer, PFC, ACK, window settings)");
  po::options_description hidden;
  std::vector<std::string> args;
  hidden.add_options()("args", po::value(&args));
  po::positional_options_description pos;
  pos.add("args", -1);
  po::options_description all;
  all.add(opts).add(hidden);
  po::variables_map vm;
  po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help") || args.empty()) {
    std::cout << opts << "\n";
    return vm.count("help") ? kOk : kBadInput;
  }
  scen::Json scenario;
  if (args[0] == "hpcc") {
    if (!config.empty()) return import_hpcc_with_config(args, config, out, name);
    if (args.size() != 3) throw scen::InputError("import hpcc", "", "TOPOLOGY and FLOWS files");
    if (name.empty()) name = std::filesystem::path(args[2]).stem().string();
    scenario = scen::import_hpcc(slurp(args[1]), args[1], slurp(args[2]), args[2], name);
  } else if (args[0] == "htsim") {
    if (args.size() != 2) throw scen::InputError("import htsim", "", "one MATRIX file");
    if (k <= 0) throw scen::InputError("--fat-tree-k", std::to_string(k), "an even k >= 2");
    if (name.empty()) name = std::filesystem::path(args[1]).stem().string();
    scenario = scen::import_htsim(slurp(args[1]), args[1], k, name);
  } else {
    throw scen::InputError("import", args[0], "hpcc or htsim");
  }
  return write_scenario(scenario, out);
}

}  // namespace cli
