// rdmasim import hpcc|htsim: bring the peers' scenario files over as rdmasim scenarios.
#include <boost/program_options.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

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

}  // namespace

int cmd_import(int argc, char** argv) {
  po::options_description opts(
      "rdmasim import hpcc TOPOLOGY FLOWS [options]\n"
      "rdmasim import htsim MATRIX --fat-tree-k K [options]");
  std::string out, name;
  int k = 0;
  opts.add_options()("help,h", "this help")("out,o", po::value(&out),
                                            "scenario file to write (default: stdout)")(
      "name", po::value(&name), "scenario name (default: from the input file name)")(
      "fat-tree-k", po::value(&k), "htsim: the fat-tree's k (1,024 hosts = 16)");
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
  const std::string text = scenario.dump(1) + "\n";
  if (out.empty()) {
    std::cout << text;
  } else {
    scen::write_file_atomic(out, text);
    std::cerr << "scenario written to " << out << "\n";
  }
  return kOk;
}

}  // namespace cli
