// rdmasim sweep --emit-slurm: the Slurm array job that runs a sweep's shards on a cluster, and
// the checks of the #SBATCH options the user adds.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "scenarios/sweep/sweep_spec.hpp"

namespace cli {

// What the user adds to the job's #SBATCH lines.
struct SlurmExtras {
  std::string time, partition;
  std::vector<std::string> lines;  // each an sbatch option, "--" added when missing
};

// --time, --partition and --sbatch as given; throws InputError naming the option when one
// is not what sbatch takes (or would put a command into the script).
SlurmExtras check_slurm_extras(const std::string& time, const std::string& partition,
                               const std::vector<std::string>& lines);

// The Slurm array job: task i runs shard i/N into the shared DIR (each point is committed by
// exactly one task; --resume makes a requeued task skip what it already finished).
std::string slurm_script(const scen::sweep::SweepSpec& spec, size_t points, size_t tasks,
                         const std::string& sweep_file, const std::string& out_dir, int jobs,
                         const SlurmExtras& extras);

}  // namespace cli
