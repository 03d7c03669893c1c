// rdmasim plot: draws a sweep's results.csv, or a run's flows (FCT CDFs) or collectives (busbw
// against size), with tools/plot.py (matplotlib) in human units. The script does the reading
// and the drawing; this command checks the options, finds it and passes them on.
#include <boost/program_options.hpp>
#include <filesystem>
#include <iostream>
#include <utility>
#include <vector>

#include "scenarios/loader/input_error.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/parse_options.hpp"
#include "tools/cli/python_script.hpp"

namespace po = boost::program_options;

namespace cli {

int cmd_plot(int argc, char** argv) {
  po::options_description opts(
      "rdmasim plot RESULTS.csv --x AXIS --y METRIC [--by AXIS] -o PNG   (a sweep)\n"
      "rdmasim plot RUN_DIR (--fct-cdf [--by COLUMN] | --busbw) -o PNG   (a run)");
  std::string results, x, y, by, output;
  opts.add_options()("help,h", "this help")("x", po::value(&x), "a sweep: the axis along x")(
      "y", po::value(&y), "a sweep: the metric along y (a results.csv column)")(
      "by", po::value(&by), "one line per value of this axis (or flows.csv column)")(
      "fct-cdf", "a run: the CDFs of its flows' completion times and slowdowns (flows.csv)")(
      "busbw", "a run: its collectives' bus bandwidth against message size (collectives.csv)")(
      "output,o", po::value(&output), "the PNG file to write");
  const po::variables_map vm = parse_options(argc, argv, opts, "results", results);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return kOk;
  }
  const bool run_plot = vm.count("fct-cdf") > 0 || vm.count("busbw") > 0;
  if (vm.count("fct-cdf") > 0 && vm.count("busbw") > 0) {
    throw scen::InputError("--busbw", "", "one of --fct-cdf and --busbw at a time");
  }
  if (results.empty()) {
    throw scen::InputError("RESULTS", "", "a sweep's results.csv or a run's output folder");
  }
  if (run_plot) {
    if (!x.empty() || !y.empty()) {
      throw scen::InputError(x.empty() ? "--y" : "--x", x.empty() ? y : x,
                             "no --x or --y with " +
                                 std::string(vm.count("busbw") ? "--busbw" : "--fct-cdf") +
                                 " (they are a sweep's)");
    }
    if (!std::filesystem::is_directory(results) && !std::filesystem::is_regular_file(results)) {
      throw scen::InputError(results, "", "a run's output folder (or its flows.csv)");
    }
  } else {
    if (x.empty()) throw scen::InputError("--x", "", "the axis along x (or --fct-cdf, --busbw)");
    if (y.empty()) throw scen::InputError("--y", "", "the metric along y");
    if (!std::filesystem::is_regular_file(results)) {
      throw scen::InputError(results, "", "a readable results.csv");
    }
  }
  if (output.empty()) throw scen::InputError("--output", "", "the PNG file to write (-o)");
  const std::string script =
      script_path("RDMASIM_PLOT_SCRIPT", std::string(RDMASIM_PLOT_SCRIPT_DEFAULT));
  std::vector<std::string> args = {results, "-o", output};
  if (vm.count("fct-cdf")) args.push_back("--fct-cdf");
  if (vm.count("busbw")) args.push_back("--busbw");
  for (const auto& [flag, value] :
       {std::pair{"--x", x}, std::pair{"--y", y}, std::pair{"--by", by}}) {
    if (value.empty()) continue;
    args.push_back(flag);
    args.push_back(value);
  }
  return run_python_script("plot", script, args);
}

}  // namespace cli
