// rdmasim schema: the scenario format as a JSON Schema (for editors: VS Code's json.schemas, a
// "$schema" key in the file), or with --reference the parameter reference (docs/parameters.md).
#include <iostream>

#include "scenarios/loader/param_registry.hpp"
#include "scenarios/loader/scenario_schema.hpp"
#include "scenarios/outputs/write_outputs.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/parse_options.hpp"

namespace cli {

int cmd_schema(int argc, char** argv) {
  namespace po = boost::program_options;
  po::options_description opts("rdmasim schema [--reference] [-o FILE]");
  std::string out_file;
  opts.add_options()("help,h", "this help")(
      "reference", "print the parameter reference (Markdown, docs/parameters.md) instead")(
      "out,o", po::value(&out_file), "write to FILE instead of standard output");
  std::string unexpected;
  const po::variables_map vm = parse_options(argc, argv, opts, "unexpected", unexpected);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return kOk;
  }
  if (!unexpected.empty()) {
    std::cerr << "rdmasim schema: unexpected argument \"" << unexpected << "\"\n" << opts << "\n";
    return kBadInput;
  }
  const std::string text =
      vm.count("reference") ? scen::parameters_markdown() : scen::scenario_schema().dump(2) + "\n";
  if (out_file.empty()) {
    std::cout << text;
  } else {
    scen::write_file_atomic(out_file, text);
  }
  return kOk;
}

}  // namespace cli
