// The name of a parameter description table (sim/param_spec.hpp), for the headers of the
// structs that declare one without pulling in what describing takes.
#pragma once

#include <vector>

namespace sim {

template <typename S>
struct ParamSpec;

template <typename S>
using ParamTable = std::vector<ParamSpec<S>>;

}  // namespace sim
