// rdmasim calibrate / validate: perftest and nccl-tests traces against simulations of the same
// experiments on the described cluster. calibrate fits the parameters and writes params.json (an
// overlay a scenario includes), report.txt, report.csv and a PNG plot; validate predicts with given
// parameters and reports the same table without fitting.
#include <boost/program_options.hpp>
#include <filesystem>
#include <iostream>
#include <vector>

#include "scenarios/loader/input_error.hpp"
#include "scenarios/outputs/write_outputs.hpp"
#include "sim/units.hpp"
#include "tools/calibration/calibration.hpp"
#include "tools/calibration/collective_experiments.hpp"
#include "tools/cli/commands.hpp"

namespace po = boost::program_options;

namespace cli {
namespace {

struct Common {
  std::string cluster_file;
  std::vector<std::string> traces;
  std::string min_size = "4KiB";
  std::string report_dir;
  bool no_plot = false;
  // nccl-tests traces.
  std::string nccl_column = "out-of-place";
  std::string algorithm, protocol;
  std::string nccl_min_size = "0";
  std::string nccl_max_simulated = "256MiB";
};

void add_common(po::options_description& opts, Common& c) {
  opts.add_options()("help,h", "this help")("cluster", po::value(&c.cluster_file),
                                            "cluster description JSON")(
      "trace", po::value(&c.traces)->composing(),
      "perftest or nccl-tests trace (repeatable); FILE@SRC,DST names the hosts it ran between "
      "(default: the "
      "cluster's \"pair\")")("min-size", po::value(&c.min_size)->default_value("4KiB"),
                             "smallest message size fitted and scored in the MAPE")(
      "report", po::value(&c.report_dir),
      "folder for report.txt, report.csv and calibration.png (calibrate: default beside the "
      "output; validate: none unless given)")("no-plot", po::bool_switch(&c.no_plot),
                                              "do not draw the PNG");
  opts.add_options()("nccl-column", po::value(&c.nccl_column)->default_value("out-of-place"),
                     "nccl-tests time fitted: out-of-place or in-place")(
      "algorithm", po::value(&c.algorithm),
      "collective algorithm for nccl-tests traces (default: the cluster's \"collective\", else "
      "auto)")("protocol", po::value(&c.protocol),
               "collective protocol (simple, ll128, ll, auto; default: the cluster's, else "
               "simple)")("nccl-min-size", po::value(&c.nccl_min_size)->default_value("0"),
                          "smallest nccl-tests size fitted and scored (default: all)")(
      "nccl-max-simulated", po::value(&c.nccl_max_simulated)->default_value("256MiB"),
      "largest nccl-tests size simulated; larger ones lie on the steady-state line through the "
      "two largest simulated sizes");
}

// A size given to an option: "4KiB", "64"; anything else refused with the option's name.
int64_t option_bytes(const char* option, const std::string& value) {
  try {
    const int64_t b = sim::parse_bytes(value);
    if (b < 0) throw sim::UnitError("negative");
    return b;
  } catch (const sim::UnitError&) {
    throw scen::InputError(option, value, "a size such as \"4KiB\", \"16MiB\", \"64\"");
  }
}

std::vector<calib::Experiment> load_experiments(const Common& o, const calib::ClusterSpec& c) {
  if (o.traces.empty()) {
    throw scen::InputError("--trace", "", "at least one perftest or nccl-tests trace");
  }
  (void)option_bytes("--min-size", o.min_size);  // the options before any trace is read
  if (o.nccl_column != "out-of-place" && o.nccl_column != "in-place") {
    throw scen::InputError("--nccl-column", o.nccl_column, "out-of-place or in-place");
  }
  const int64_t nccl_min = option_bytes("--nccl-min-size", o.nccl_min_size);
  const int64_t nccl_max = option_bytes("--nccl-max-simulated", o.nccl_max_simulated);
  std::vector<calib::Experiment> out;
  for (const std::string& arg : o.traces) {
    std::string file = arg, src, dst;
    const auto at = arg.rfind('@');
    if (at != std::string::npos && arg.find(',', at) != std::string::npos) {
      file = arg.substr(0, at);
      const std::string hosts = arg.substr(at + 1);
      src = hosts.substr(0, hosts.find(','));
      dst = hosts.substr(hosts.find(',') + 1);
    }
    const traces::Trace t = traces::read_trace_file(file);
    if (t.kind == traces::TraceKind::NcclTests) {
      calib::Experiment e = calib::experiment_from_nccl(t.nccl, c, o.nccl_column == "in-place");
      e.algorithm = o.algorithm;
      e.protocol = o.protocol;
      e.min_bytes = nccl_min;
      e.max_simulated_bytes = nccl_max;
      out.push_back(std::move(e));
    } else {
      out.push_back(calib::experiment_from_trace(t, c, src, dst));
    }
  }
  return out;
}

// What calibrate and validate share: the options parsed, the cluster read, the traces turned
// into experiments, after the command's own required option (`flag`, its `value`, `expected`)
// is checked. Returns false when only --help was asked for.
bool load_inputs(int argc, char** argv, const po::options_description& opts, const Common& o,
                 const char* flag, const std::string& value, const char* expected,
                 calib::ClusterSpec& cluster, std::vector<calib::Experiment>& experiments) {
  po::variables_map vm;
  po::store(po::command_line_parser(argc, argv).options(opts).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return false;
  }
  if (o.cluster_file.empty()) throw scen::InputError("--cluster", "", "a cluster description");
  if (value.empty()) throw scen::InputError(flag, "", expected);
  cluster = calib::read_cluster_file(o.cluster_file);
  experiments = load_experiments(o, cluster);
  return true;
}

void write_report(const Common& o, const std::string& default_dir,
                  const calib::CalibrationResult& r) {
  const std::string dir = o.report_dir.empty() ? default_dir : o.report_dir;
  std::filesystem::create_directories(dir);
  const std::string text = calib::format_report(r);
  std::cout << text;
  scen::write_file_atomic(dir + "/report.txt", text);
  scen::write_file_atomic(dir + "/report.csv", calib::report_csv(r));
  if (!o.no_plot) {
    if (calib::plot_report(dir + "/report.csv", dir + "/calibration.png")) {
      std::cout << "plot: " << dir << "/calibration.png\n";
    } else {
      std::cerr << "rdmasim: no plot drawn (python3-matplotlib?); the table is in " << dir
                << "/report.csv\n";
    }
  }
  std::cout << "report: " << dir << "/report.txt\n";
}

}  // namespace

int cmd_calibrate(int argc, char** argv) {
  po::options_description opts(
      "rdmasim calibrate --cluster C.json --trace T [--trace T2 ...] -o params.json");
  Common o;
  std::string output;
  add_common(opts, o);
  opts.add_options()("output,o", po::value(&output), "params.json to write (required)");
  calib::ClusterSpec c;
  std::vector<calib::Experiment> ex;
  if (!load_inputs(argc, argv, opts, o, "--output", output, "the params.json to write (-o)", c,
                   ex)) {
    return kOk;
  }
  const int64_t min_bytes = option_bytes("--min-size", o.min_size);
  const calib::CalibrationResult r = calib::calibrate(c, ex, min_bytes);
  scen::Json overlay = calib::params_overlay(c, r.params);
  std::string traces_used;
  for (const auto& e : ex) traces_used += (traces_used.empty() ? "" : ", ") + e.file;
  overlay["description"] = "fabric parameters fitted by rdmasim calibrate for cluster '" + c.name +
                           "' to " + traces_used;
  const std::filesystem::path out_path(output);
  if (out_path.has_parent_path()) std::filesystem::create_directories(out_path.parent_path());
  scen::write_file_atomic(output, overlay.dump(2) + "\n");
  std::cout << "params: " << output << "\n";
  write_report(o, out_path.has_parent_path() ? out_path.parent_path().string() : ".", r);
  return kOk;
}

int cmd_validate(int argc, char** argv) {
  po::options_description opts(
      "rdmasim validate --cluster C.json --params params.json --trace T [--trace T2 ...]");
  Common o;
  std::string params;
  add_common(opts, o);
  opts.add_options()("params", po::value(&params), "params.json written by rdmasim calibrate");
  calib::ClusterSpec c;
  std::vector<calib::Experiment> ex;
  if (!load_inputs(argc, argv, opts, o, "--params", params, "a params.json from calibrate", c,
                   ex)) {
    return kOk;
  }
  const calib::CalibrationResult r = calib::predict(c, ex, calib::read_params_overlay(params, c),
                                                    option_bytes("--min-size", o.min_size));
  if (o.report_dir.empty()) {
    // No folder asked for: the table on the terminal, and no file dropped into the current
    // folder unasked.
    std::cout << calib::format_report(r)
              << "(--report DIR writes report.txt, report.csv and calibration.png)\n";
    return kOk;
  }
  write_report(o, o.report_dir, r);
  return kOk;
}

}  // namespace cli
