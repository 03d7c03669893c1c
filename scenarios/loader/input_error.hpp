// Refused input: names the JSON path, the offending value and what was expected. The CLI
// turns it into exit code 2 before any simulation starts.
#pragma once

#include <stdexcept>
#include <string>

namespace scen {

struct InputError : std::runtime_error {
  std::string path;      // "workload.flows[3].size", or "<file>" for file-level problems
  std::string value;     // the offending value as written (may be empty)
  std::string expected;  // what would have been accepted
  InputError(std::string p, std::string v, std::string e)
      : std::runtime_error(p + ": got " + (v.empty() ? std::string("nothing") : v) + "; expected " +
                           e),
        path(std::move(p)),
        value(std::move(v)),
        expected(std::move(e)) {}
};

}  // namespace scen
