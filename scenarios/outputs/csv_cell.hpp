// One field of a CSV file as RFC 4180 writes it: as is, unless it holds a comma, a double
// quote or a line break, then in double quotes with its quotes doubled. Every text field of
// every CSV rdmasim writes (node and host names, series labels, tags, sweep axis values,
// errors) goes through it, so a host named "h,0" keeps its row whole.
#pragma once

#include <string>
#include <string_view>

namespace scen {

inline std::string csv_cell(std::string_view s) {
  if (s.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(s);
  std::string q = "\"";
  for (const char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

}  // namespace scen
