// rdmasim compare SIM_OUT REAL_OUT: two runs of one scenario (a simulation and a replay on
// hardware by rdmasim-probe, or two simulations) — FCT percentiles side by side with the error.
#include <boost/program_options.hpp>
#include <iostream>
#include <vector>

#include "scenarios/loader/input_error.hpp"
#include "tools/calibration/flows_table.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/parse_options.hpp"

namespace po = boost::program_options;

namespace cli {

int cmd_compare(int argc, char** argv) {
  po::options_description opts("rdmasim compare SIM_OUT REAL_OUT (folders or flows.csv files)");
  opts.add_options()("help,h", "this help");
  std::vector<std::string> paths;
  const po::variables_map vm = parse_options(argc, argv, opts, "paths", paths, 2);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return kOk;
  }
  if (paths.size() != 2) {
    throw scen::InputError("compare", std::to_string(paths.size()) + " paths",
                           "two outputs: SIM_OUT REAL_OUT");
  }
  const auto sim = calib::read_flows_csv(paths[0]);
  const auto real = calib::read_flows_csv(paths[1]);
  std::cout << "simulated: " << paths[0] << "\nreal:      " << paths[1] << "\n"
            << calib::format_comparison(calib::compare_fct(sim, real, paths[0], paths[1]));
  return kOk;
}

}  // namespace cli
