// A result value as the terminal shows it (the headline of `rdmasim run`, the fabric
// comparison table).
#pragma once

#include <string>

#include "scenarios/loader/json_reader.hpp"

namespace scen {

// Text as is, a measured value (a JSON number with a fraction) with the three decimals it is
// exact to, a count as an integer.
std::string result_text(const Json& v);

}  // namespace scen
