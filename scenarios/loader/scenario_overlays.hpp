// What is laid over a scenario file before it is read: the files it includes ("include": [...],
// merged in order, the file's own keys last) and the command line's `--set path=value`
// assignments (apply_set, declared in scenario.hpp).
#pragma once

#include <string>

#include "scenarios/loader/scenario.hpp"

namespace scen {

// `root` with its includes (recursively) merged under it; file names relative to `base_dir`.
// `source_file` (may be empty) is the file `root` came from, so including itself is a cycle.
Json resolve_includes(const Json& root, const std::string& base_dir,
                      const std::string& source_file);

}  // namespace scen
