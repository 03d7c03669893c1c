// A sweep point in a process of its own: this same binary runs `rdmasim sweep SWEEP --out DIR
// --point ID -q`, which commits the point's folder as an in-process run would. A point whose
// simulation crashes (a signal, an abort, the kernel's out-of-memory killer) then takes only
// its own process down: it is recorded as failed with its signal and the other points go on.
#pragma once

#include <optional>
#include <string>

#include "scenarios/sweep/sweep_points.hpp"

namespace cli {

// Runs point `p` of the sweep read from `sweep_file` in a child process of `exe` and returns
// its record: the child's own, or a failed one naming the signal that killed it. Returns
// nullopt when nothing was committed: the child exited with an error before its record (its
// message is on stderr), or it was stopped by SIGINT, SIGTERM or SIGHUP (a user's stop, not a
// failure of the point), so that --resume runs it again.
std::optional<scen::Json> run_point_in_child(const std::string& exe, const std::string& sweep_file,
                                             const scen::sweep::SweepSpec& spec,
                                             const scen::sweep::SweepPoint& p,
                                             const std::string& out_dir);

}  // namespace cli
