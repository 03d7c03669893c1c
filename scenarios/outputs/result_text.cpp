#include "scenarios/outputs/result_text.hpp"

#include <cstdio>

namespace scen {

std::string result_text(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) {
    char b[48];
    std::snprintf(b, sizeof b, "%.3f", v.get<double>());
    return b;
  }
  return v.dump();
}

}  // namespace scen
