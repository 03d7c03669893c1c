// The folder a run writes (`rdmasim run --out`) and the files it names (--timeline): checked
// before the simulation, so that a path that cannot take the results is refused (exit 2) in
// seconds rather than after hours; and an earlier run's files cleared before the new ones are
// written, so that no file of another run (a pfc.csv, a deadlocks.json) stays beside them.
#pragma once

#include <string>
#include <vector>

namespace scen {

// The files a run writes into its folder (write_outputs.hpp), and a fabric comparison's
// (comparison.csv beside one folder per fabric).
const std::vector<std::string>& run_output_names();

// Whether `dir` holds an earlier run: rdmasim's summary.json (an object with "scenario" and
// "results"), or a comparison.csv beside a fabric folder that holds one.
bool is_earlier_run(const std::string& dir);

// Before simulating. `dir` must be a folder (or not exist yet) this user can write to — it or
// its nearest existing ancestor — and, when it exists and is not empty, an earlier run's,
// unless `force`. InputError("--out", dir, what was expected) otherwise. Creates nothing.
void check_output_folder(const std::string& dir, bool force);

// Before simulating: `file` (given by `option`) must not be a folder, and its folder (or the
// nearest existing ancestor) must be writable. Creates nothing.
void check_output_file(const std::string& option, const std::string& file);

// Removes what an earlier run wrote into `dir`: its run_output_names() and those of its fabric
// folders (removed when nothing else is left in them). Anything else stays.
void clear_earlier_run(const std::string& dir);

}  // namespace scen
