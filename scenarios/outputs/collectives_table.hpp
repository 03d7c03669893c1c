// Collective results in nccl-tests' layout (the all_reduce_perf table: size, count, type,
// redop, root, time, algbw, busbw) and as collectives.csv.
#pragma once

#include <string>
#include <vector>

#include "models/collectives/collective_runner.hpp"
#include "scenarios/run/run_scenario.hpp"

namespace scen {

// The table as nccl-tests prints it, per collective: a line naming its op, ranks, algorithm,
// protocol and channels; nccl-tests' settings line and "Using devices" ranks; the
// out-of-place and in-place columns (the same figures: the simulation has no in-place
// variant) with #wrong 0; "# Out of bounds values" and "# Avg bus bandwidth"; then, as
// comments, the algorithm/protocol each size ran with. `rdmasim calibrate` and other readers
// of nccl-tests logs accept it.
std::string collectives_table(const std::vector<models::CollectiveResult>& rows,
                              const std::vector<models::CollectiveSpec>& specs);

// collective,op,ranks,algorithm,protocol,size_bytes,count,type_bytes,time_us,algbw_gbps,
// busbw_gbps,messages,wire_bytes,nvlink_bytes,network_bytes,channels (wire bytes NVLink
// endpoint to NVLink endpoint, and through the NICs)
std::string collectives_csv(const std::vector<models::CollectiveResult>& rows,
                            const std::vector<models::CollectiveSpec>& specs);

// The training steps: step time, compute, communication, exposed, MFU, one line each.
std::string training_summary(const RunOutcome& out);
// training.csv: step,step_us,compute_us,communication_us,exposed_us,last_bucket_tail_us,buckets,mfu
std::string training_csv(const RunOutcome& out);
// training_groups.csv (tensor/pipeline/data parallel steps): per step and kind of group its
// groups, GPUs per group, calls and bytes per GPU, communication and waiting for peers (means
// per GPU) and the step's MFU were the kind's communication free:
// step,group,groups,ranks,calls_per_gpu,bytes_per_gpu,communication_us,wait_us,mfu_without
std::string training_groups_csv(const RunOutcome& out);
// A Chakra workload: one line (ranks, the iteration, mean compute and exposed communication).
std::string chakra_summary(const RunOutcome& out);
// chakra.csv: rank,name,iteration_us,compute_us,exposed_us,nodes,collectives,sends,recvs (the
// iteration from the workload's start to the rank's last node; exposed = iteration - compute)
std::string chakra_csv(const RunOutcome& out);

}  // namespace scen
