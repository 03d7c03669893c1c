// rdmasim report: one self-contained HTML file of a run's or a sweep's results, drawn by
// tools/report.py (inline SVG, no dependency). A measured nccl-tests trace given with --trace
// is read here, by the same parser `calibrate` uses, and handed to the script as size and
// busbw rows.
#include <unistd.h>

#include <boost/program_options.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "scenarios/loader/input_error.hpp"
#include "scenarios/outputs/output_folder.hpp"
#include "scenarios/outputs/write_outputs.hpp"
#include "scenarios/traces/trace.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/parse_options.hpp"
#include "tools/cli/python_script.hpp"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace cli {

int write_report(const std::string& out_dir, std::string output, const std::string& trace) {
  if (!fs::is_regular_file(fs::path(out_dir) / "summary.json") &&
      !fs::is_regular_file(fs::path(out_dir) / "results.csv")) {
    throw scen::InputError(out_dir, "",
                           "a run's output folder (summary.json) or a sweep's (results.csv)");
  }
  if (output.empty()) output = (fs::path(out_dir) / "report.html").string();
  scen::check_output_file("--output", output);
  std::vector<std::string> args = {out_dir, "-o", output};
  std::string measured;
  if (!trace.empty()) {
    const traces::Trace t = traces::read_trace_file(trace);
    if (t.kind != traces::TraceKind::NcclTests) {
      throw scen::InputError("--trace", trace, "nccl-tests output (a busbw column per size)");
    }
    std::string csv = "size_bytes,busbw_GBps\n";
    for (const traces::NcclRow& r : t.nccl.rows) {
      char line[64];
      std::snprintf(line, sizeof line, "%lld,%.6f\n", static_cast<long long>(r.bytes),
                    r.out_of_place.busbw_gb_s);
      csv += line;
    }
    measured =
        (fs::temp_directory_path() / ("rdmasim-measured-" + std::to_string(::getpid()) + ".csv"))
            .string();
    scen::write_file_atomic(measured, csv);
    args.insert(args.end(), {"--measured", measured, "--measured-name",
                             fs::path(trace).filename().string() + " (out of place)"});
  }
  const std::string script =
      script_path("RDMASIM_REPORT_SCRIPT", std::string(RDMASIM_REPORT_SCRIPT_DEFAULT));
  const int code = run_python_script("report", script, args);
  if (!measured.empty()) fs::remove(measured);
  return code;
}

int cmd_report(int argc, char** argv) {
  po::options_description opts("rdmasim report OUT_DIR [-o REPORT.html] [--trace NCCL_TESTS.txt]");
  std::string out_dir, output, trace;
  opts.add_options()("help,h", "this help")("output,o", po::value(&output),
                                            "the HTML file to write (default OUT_DIR/report.html)")(
      "trace", po::value(&trace),
      "a measured nccl-tests output drawn beside the collectives' busbw");
  const po::variables_map vm = parse_options(argc, argv, opts, "out_dir", out_dir);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return kOk;
  }
  if (out_dir.empty()) throw scen::InputError("OUT_DIR", "", "a run's or a sweep's output folder");
  return write_report(out_dir, output, trace);
}

}  // namespace cli
