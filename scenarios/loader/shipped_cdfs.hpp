// The flow-size distributions shipped with rdmasim (scenarios/data/*.cdf), compiled into the
// library so that a workload naming one ("cdf": "websearch") reads the same text wherever the
// binary or the installed library runs: no data folder to find at run time.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace scen {

// The text of a shipped CDF by name ("websearch", "fb_hadoop"); nullptr for another name.
const std::string* shipped_cdf(std::string_view name);
// Their names, in alphabetical order.
std::vector<std::string> shipped_cdf_names();

}  // namespace scen
