// rdmasim: the command line. Errors in the input become exit code 2 with the JSON path, the
// value and what was expected; a broken model invariant is an internal error (exit 1).
#include <boost/program_options/errors.hpp>
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>

#include "scenarios/loader/input_error.hpp"
#include "sim/huge_pages.hpp"
#include "sim/logging.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/mpi_launch.hpp"

namespace {

const char* kUsage =
    "rdmasim — packet-level simulator of InfiniBand and RoCEv2 GPU cluster fabrics\n"
    "\n"
    "usage: rdmasim <command> [options]    (rdmasim <command> --help for each)\n"
    "\n"
    "commands:\n"
    "  run SCENARIO        simulate a scenario file, write results to --out DIR\n"
    "  check SCENARIO      validate a scenario, print topology and route summary\n"
    "  sweep SWEEP         run a parameter sweep's points in parallel into --out DIR\n"
    "  plot RESULTS.csv    draw a sweep's results.csv: --x AXIS --y METRIC [--by AXIS] -o PNG\n"
    "  plot RUN_DIR        draw a run's FCT CDFs (--fct-cdf) or busbw against size (--busbw)\n"
    "  report OUT_DIR      one HTML page of a run's or a sweep's results (figures inline)\n"
    "  chakra generate     Chakra execution traces of a tensor/pipeline/data-parallel step\n"
    "  topo gen KIND ...   generate a topology file (leaf-spine, fat-tree, clos3, rail)\n"
    "  topo show FILE      counts, bisection, path diversity (--dot for Graphviz)\n"
    "  import hpcc|htsim   convert a peer simulator's input files to a scenario\n"
    "  calibrate           fit NIC/switch parameters to perftest traces: --cluster C.json\n"
    "                      --trace T [--trace T2 ...] -o params.json\n"
    "  validate            predict a trace with fitted parameters: --cluster --params --trace\n"
    "  compare SIM REAL    two runs' flows.csv: FCT percentiles side by side with the error\n"
    "  schema              the scenario format as a JSON Schema (--reference: the parameters\n"
    "                      as Markdown, docs/parameters.md)\n"
    "\n"
    "  --version           print the version\n"
    "  --log-level LEVEL   trace, debug, info, warn (default: warnings and errors on stderr),\n"
    "                      error or off; with any command\n"
    "  --log-file FILE     also append the log there, timestamped (at the same level)\n"
    "\n"
    "exit codes: 0 ok, 1 internal error, 2 bad input, 3 check found problems (--strict),\n"
    "            4 batch finished with failed points\n";

// Takes --log-level and --log-file (either "--x v" or "--x=v", anywhere after the command)
// out of argv and sets the log up; false (and a message) on a bad value.
bool take_log_options(int& argc, char** argv) {
  sim::LogLevel level = sim::LogLevel::Warn;
  std::string file;
  bool level_given = false;
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    std::string key, value;
    for (const char* k : {"--log-level", "--log-file"}) {
      const std::string prefix = std::string(k) + "=";
      if (a == k) {
        if (i + 1 >= argc) {
          std::fprintf(stderr, "rdmasim: %s needs a value\n", k);
          return false;
        }
        key = k;
        value = argv[++i];
      } else if (a.rfind(prefix, 0) == 0) {
        key = k;
        value = a.substr(prefix.size());
      }
    }
    if (key.empty()) {
      argv[out++] = argv[i];
    } else if (key == "--log-level") {
      if (!sim::parse_log_level(value, level)) {
        std::fprintf(stderr,
                     "rdmasim: --log-level %s: expected trace, debug, info, warn, error or off\n",
                     value.c_str());
        return false;
      }
      level_given = true;
    } else {
      if (value.empty()) {
        std::fprintf(stderr, "rdmasim: --log-file needs a file name\n");
        return false;
      }
      file = value;
    }
  }
  argc = out;
  argv[argc] = nullptr;
  if (level_given || !file.empty()) {
    try {
      sim::configure_logging(level, file);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "rdmasim: --log-file: %s\n", e.what());
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  // Before anything allocates much, with argv as given.
  if (argc >= 2 && (std::strcmp(argv[1], "run") == 0 || std::strcmp(argv[1], "sweep") == 0)) {
    sim::reexec_with_huge_pages(argv);
  }
  if (!take_log_options(argc, argv)) return cli::kBadInput;
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return cli::kBadInput;
  }
  const std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    std::fputs(kUsage, stdout);
    return cli::kOk;
  }
  if (cmd == "--version") {
    std::printf("rdmasim %s\n", RDMASIM_VERSION);
    return cli::kOk;
  }
  // A process of a run launched over several (mpirun, srun) but the first: every process reads
  // the same input, so only the first reports what is wrong with it, and fails the launch with
  // exit code 2; the others end quietly (a launcher ends the whole job when one process fails,
  // which could end the first before it said why).
  const bool other_rank = cli::launch_from_environment().rank > 0;
  try {
    if (cmd == "run") return cli::cmd_run(argc - 1, argv + 1);
    if (cmd == "check") return cli::cmd_check(argc - 1, argv + 1);
    if (cmd == "topo") return cli::cmd_topo(argc - 1, argv + 1);
    if (cmd == "import") return cli::cmd_import(argc - 1, argv + 1);
    if (cmd == "sweep") return cli::cmd_sweep(argc - 1, argv + 1);
    if (cmd == "plot") return cli::cmd_plot(argc - 1, argv + 1);
    if (cmd == "report") return cli::cmd_report(argc - 1, argv + 1);
    if (cmd == "chakra") return cli::cmd_chakra(argc - 1, argv + 1);
    if (cmd == "schema") return cli::cmd_schema(argc - 1, argv + 1);
    if (cmd == "compare") return cli::cmd_compare(argc - 1, argv + 1);
    if (cmd == "calibrate") return cli::cmd_calibrate(argc - 1, argv + 1);
    if (cmd == "validate") return cli::cmd_validate(argc - 1, argv + 1);
    std::fprintf(stderr, "rdmasim: unknown command '%s'\n\n%s", cmd.c_str(), kUsage);
    return cli::kBadInput;
  } catch (const scen::InputError& e) {
    if (other_rank) return cli::kOk;  // the first process fails the launch, saying why
    std::fprintf(stderr, "rdmasim: error: %s\n", e.what());
    return cli::kBadInput;
  } catch (const boost::program_options::error& e) {
    if (other_rank) return cli::kOk;
    std::fprintf(stderr, "rdmasim %s: %s (see rdmasim %s --help)\n", cmd.c_str(), e.what(),
                 cmd.c_str());
    return cli::kBadInput;
  } catch (const std::logic_error& e) {
    std::fprintf(stderr, "rdmasim: internal error: %s\n", e.what());
    return cli::kInternal;
  } catch (const std::exception& e) {
    // A run over several processes ends every process when one fails: that one says why.
    if (!other_rank || std::strstr(e.what(), "another process of it") == nullptr) {
      std::fprintf(stderr, "rdmasim: internal error: %s\n", e.what());
    }
    return cli::kInternal;
  }
}
