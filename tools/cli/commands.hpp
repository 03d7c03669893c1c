// Subcommands of the rdmasim CLI. Each returns the process exit code:
// 0 ok (a deadlock found by a run is a result, not an error), 1 internal error, 2 bad input,
// 3 a check found problems under --strict, 4 a batch finished with some failed points.
#pragma once

#include <string>

namespace cli {

enum ExitCode : int { kOk = 0, kInternal = 1, kBadInput = 2, kCheckFailed = 3, kBatchFailed = 4 };

int cmd_run(int argc, char** argv);
int cmd_check(int argc, char** argv);
int cmd_topo(int argc, char** argv);
int cmd_import(int argc, char** argv);
int cmd_sweep(int argc, char** argv);
int cmd_plot(int argc, char** argv);
int cmd_compare(int argc, char** argv);    // tools/cli/cmd_compare.cpp
int cmd_calibrate(int argc, char** argv);  // tools/cli/cmd_calibrate.cpp
int cmd_validate(int argc, char** argv);
int cmd_report(int argc, char** argv);  // tools/cli/cmd_report.cpp
int cmd_chakra(int argc, char** argv);  // tools/cli/cmd_chakra.cpp
int cmd_schema(int argc, char** argv);  // tools/cli/cmd_schema.cpp

// The HTML report of a run's or a sweep's folder into `output` (default OUT_DIR/report.html),
// with a measured nccl-tests trace beside the collectives when `trace` is given (run --report
// and rdmasim report).
int write_report(const std::string& out_dir, std::string output, const std::string& trace);

}  // namespace cli
