// rdmasim chakra generate: Chakra execution traces of a training step with tensor, pipeline
// and data parallelism (scenarios/chakra/chakra_generate.hpp), for `workload.chakra`.
#include <boost/program_options.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "scenarios/chakra/chakra_generate.hpp"
#include "scenarios/loader/input_error.hpp"
#include "sim/units.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/parse_options.hpp"

namespace po = boost::program_options;

namespace cli {
namespace {

sim::Time time_option(const std::string& name, const std::string& text) {
  try {
    const sim::Time t = sim::parse_time(text);
    if (t.ps < 0) throw sim::UnitError("negative");
    return t;
  } catch (const sim::UnitError&) {
    throw scen::InputError("--" + name, text, "a time such as \"100us\" or \"1.5ms\"");
  }
}

int64_t bytes_option(const std::string& name, const std::string& text) {
  try {
    const int64_t b = sim::parse_bytes(text);
    if (b < 1 || b > (int64_t{1} << 40)) throw sim::UnitError("out of range");
    return b;
  } catch (const sim::UnitError&) {
    throw scen::InputError("--" + name, text, "a size from 1 B to 1 TiB, such as \"4MiB\"");
  }
}

void check_count(const char* name, int v, int max) {
  if (v < 1 || v > max) {
    throw scen::InputError(std::string("--") + name, std::to_string(v),
                           "a count from 1 to " + std::to_string(max));
  }
}

}  // namespace

int cmd_chakra(int argc, char** argv) {
  const std::string usage =
      "rdmasim chakra generate --tp T --pp P --dp D --microbatches M --layers L --forward TIME "
      "[--backward TIME] [--optimizer TIME] --activations BYTES --gradients BYTES [--bucket "
      "BYTES] -o PREFIX\n\nWrites PREFIX.<rank>.et (MLCommons Chakra execution traces, ranks in "
      "Megatron-LM's order) and PREFIX.comm_groups.json for workload.chakra";
  po::options_description opts(usage);
  scen::ChakraTrainingLayout l;
  std::string action, forward, backward, optimizer = "0us", activations, gradients,
                                         bucket = "25MiB", prefix;
  opts.add_options()("help,h", "this help")("tp", po::value(&l.tp)->default_value(1),
                                            "tensor-parallel size")(
      "pp", po::value(&l.pp)->default_value(1), "pipeline-parallel size (stages)")(
      "dp", po::value(&l.dp)->default_value(1), "data-parallel size")(
      "microbatches", po::value(&l.microbatches)->default_value(1), "micro-batches per step")(
      "layers", po::value(&l.layers)->default_value(1), "layers (a multiple of --pp)")(
      "forward", po::value(&forward), "one layer's forward of one micro-batch on one GPU")(
      "backward", po::value(&backward), "its backward (default: twice the forward)")(
      "optimizer", po::value(&optimizer), "the optimizer step (default 0)")(
      "activations", po::value(&activations), "one micro-batch's activations (bytes)")(
      "gradients", po::value(&gradients), "one layer's gradients per GPU (bytes)")(
      "bucket", po::value(&bucket), "gradient all-reduce bucket (default 25MiB)")(
      "output,o", po::value(&prefix), "the traces' prefix: PREFIX.<rank>.et");
  const po::variables_map vm = parse_options(argc, argv, opts, "action", action);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return kOk;
  }
  if (action != "generate") throw scen::InputError("rdmasim chakra", action, "generate");
  check_count("tp", l.tp, 4096);
  check_count("pp", l.pp, 4096);
  check_count("dp", l.dp, 1 << 16);
  check_count("microbatches", l.microbatches, 100000);
  check_count("layers", l.layers, 100000);
  if (static_cast<int64_t>(l.tp) * l.pp * l.dp > (1 << 20)) {
    throw scen::InputError("--tp x --pp x --dp", std::to_string(int64_t{l.tp} * l.pp * l.dp),
                           "at most 2^20 ranks");
  }
  if (forward.empty()) throw scen::InputError("--forward", "", "a time such as \"100us\"");
  if (prefix.empty()) throw scen::InputError("--output", "", "a prefix for the trace files");
  l.forward = time_option("forward", forward);
  l.backward = backward.empty() ? sim::Time(2 * l.forward.ps) : time_option("backward", backward);
  l.optimizer = time_option("optimizer", optimizer);
  if (!activations.empty()) l.activation_bytes = bytes_option("activations", activations);
  l.gradient_bytes = gradients.empty() ? 0 : bytes_option("gradients", gradients);
  l.bucket_bytes = bytes_option("bucket", bucket);
  const std::filesystem::path parent = std::filesystem::path(prefix).parent_path();
  if (!parent.empty() && !std::filesystem::is_directory(parent)) {
    throw scen::InputError("--output", prefix, "a prefix in an existing folder");
  }
  const int ranks = scen::write_training_traces(l, prefix);
  std::printf(
      "wrote %s.0.et ... %s.%d.et (%d ranks: tp %d x pp %d x dp %d) and "
      "%s.comm_groups.json\n",
      prefix.c_str(), prefix.c_str(), ranks - 1, ranks, l.tp, l.pp, l.dp, prefix.c_str());
  return kOk;
}

}  // namespace cli
