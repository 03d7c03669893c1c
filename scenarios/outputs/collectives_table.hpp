// Collective results in nccl-tests' layout (the all_reduce_perf table: size, count, type,
// redop, root, time, algbw, busbw) and as collectives.csv.
#pragma once

#include <string>
#include <vector>

#include "models/collectives/collective_runner.hpp"
#include "scenarios/run/run_scenario.hpp"

namespace scen {

// The table as nccl-tests prints it (out-of-place columns only: one run per size), with a
// header line per collective naming its op, ranks, algorithm and protocol, and the
// "# Avg bus bandwidth" line.
std::string collectives_table(const std::vector<models::CollectiveResult>& rows,
                              const std::vector<models::CollectiveSpec>& specs);

// collective,op,ranks,algorithm,protocol,size_bytes,count,type_bytes,time_us,algbw_gbps,
// busbw_gbps,messages,wire_bytes,nvlink_bytes,network_bytes (wire bytes NVLink endpoint to
// NVLink endpoint, and through the NICs)
std::string collectives_csv(const std::vector<models::CollectiveResult>& rows,
                            const std::vector<models::CollectiveSpec>& specs);

// The training steps: step time, compute, communication, exposed, MFU, one line each.
std::string training_summary(const RunOutcome& out);
// training.csv: step,step_us,compute_us,communication_us,exposed_us,last_bucket_tail_us,buckets,mfu
std::string training_csv(const RunOutcome& out);

}  // namespace scen
