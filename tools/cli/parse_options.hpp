// Command-line parsing shared by the subcommands: the visible options plus one positional
// argument (the scenario, sweep or results file).
#pragma once

#include <boost/program_options.hpp>
#include <string>

#include "scenarios/loader/input_error.hpp"
#include "sim/units.hpp"

namespace cli {

// Parses `argv` into `vm`, the positional arguments named `positional` (at most `max_count`)
// into `value` (a std::string for one, a std::vector<std::string> for several).
template <typename Value>
boost::program_options::variables_map parse_options(
    int argc, char** argv, const boost::program_options::options_description& opts,
    const char* positional, Value& value, int max_count = 1) {
  namespace po = boost::program_options;
  po::options_description hidden;
  hidden.add_options()(positional, po::value(&value));
  po::positional_options_description pos;
  pos.add(positional, max_count);
  po::options_description all;
  all.add(opts).add(hidden);
  po::variables_map vm;
  po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
  po::notify(vm);
  return vm;
}

// --max-memory SIZE ("16GiB", "512MiB"; "" = the machine's memory, returned as 0).
inline int64_t max_memory_option(const std::string& value) {
  if (value.empty()) return 0;
  try {
    const int64_t b = sim::parse_bytes(value);
    if (b < (1LL << 20)) throw sim::UnitError("too small");
    return b;
  } catch (const sim::UnitError&) {
    throw scen::InputError("--max-memory", value,
                           "a memory size of at least 1MiB, such as \"16GiB\" or \"512MiB\"");
  }
}

}  // namespace cli
