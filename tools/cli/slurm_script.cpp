#include "tools/cli/slurm_script.hpp"

#include <filesystem>
#include <regex>

#include "scenarios/loader/input_error.hpp"

namespace fs = std::filesystem;

namespace cli {
namespace {

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (const char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Slurm's time limit forms (sbatch(1) --time): M, M:S, H:M:S, D-H, D-H:M, D-H:M:S, or
// "UNLIMITED".
bool slurm_time(const std::string& t) {
  static const std::regex form(R"(^(UNLIMITED|infinite|\d+(:\d+){0,2}|\d+-\d+(:\d+){0,2})$)");
  return std::regex_match(t, form);
}

}  // namespace

SlurmExtras check_slurm_extras(const std::string& time, const std::string& partition,
                               const std::vector<std::string>& lines) {
  SlurmExtras x;
  if (!time.empty() && !slurm_time(time)) {
    throw scen::InputError("--time", time,
                           "a Slurm time limit: minutes, M:S, H:M:S, D-H, D-H:M or D-H:M:S");
  }
  x.time = time;
  if (!partition.empty() && partition.find_first_of(" \t\r\n'\"#") != std::string::npos) {
    throw scen::InputError("--partition", partition, "a Slurm partition name (no spaces)");
  }
  x.partition = partition;
  for (const std::string& l : lines) {
    // One option per #SBATCH line: a line break would smuggle a shell command into the job.
    if (l.empty() || l.find_first_of("\r\n") != std::string::npos || l == "-" || l == "--") {
      throw scen::InputError("--sbatch", l, "one sbatch option, such as account=proj or --qos=low");
    }
    x.lines.push_back(l[0] == '-' ? l : "--" + l);
  }
  return x;
}

std::string slurm_script(const scen::sweep::SweepSpec& spec, size_t points, size_t tasks,
                         const std::string& sweep_file, const std::string& out_dir, int jobs,
                         const SlurmExtras& extras) {
  const std::string bin = fs::canonical("/proc/self/exe").string();
  const std::string sweep_abs = fs::absolute(sweep_file).lexically_normal().string();
  const std::string out_abs = fs::absolute(out_dir).lexically_normal().string();
  const std::string n = std::to_string(tasks);
  std::string s;
  s += "#!/bin/bash\n";
  s += "# Slurm array job for the sweep " + spec.name + " (" + std::to_string(points) +
       " points in " + n + " shards), written by rdmasim sweep --emit-slurm.\n";
  s += "# Every task writes its points into the same folder, which must be on a file system\n";
  s += "# that all nodes share. Submit it with sbatch; when every task is done, build the\n";
  s += "# complete table with:\n";
  s += "#   " + shell_quote(bin) + " sweep " + shell_quote(sweep_abs) + " --merge " +
       shell_quote(out_abs) + "\n";
  s += "#SBATCH --job-name=rdmasim-" + spec.name + "\n";
  s += "#SBATCH --array=0-" + std::to_string(tasks - 1) + "\n";
  s += "#SBATCH --ntasks=1\n";
  s += "#SBATCH --cpus-per-task=" + std::to_string(jobs) + "\n";
  s += "#SBATCH --output=" + out_abs + "/slurm-%A_%a.out\n";
  if (!extras.time.empty()) s += "#SBATCH --time=" + extras.time + "\n";
  if (!extras.partition.empty()) s += "#SBATCH --partition=" + extras.partition + "\n";
  for (const std::string& l : extras.lines) s += "#SBATCH " + l + "\n";
  s += "set -euo pipefail\n";
  s += "mkdir -p " + shell_quote(out_abs) + "\n";
  s += "exec " + shell_quote(bin) + " sweep " + shell_quote(sweep_abs) + " --out " +
       shell_quote(out_abs) +
       " --resume -j \"${SLURM_CPUS_PER_TASK:-1}\" --shard \"${SLURM_ARRAY_TASK_ID}/" + n + "\"\n";
  return s;
}

}  // namespace cli
