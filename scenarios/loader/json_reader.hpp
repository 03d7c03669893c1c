// Typed, path-tracking access to a JSON object. Every key read is remembered so finish()
// can refuse unknown keys (a misspelt parameter must never be silently ignored).
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/loader/input_error.hpp"
#include "scenarios/loader/quantity_bounds.hpp"
#include "sim/time.hpp"

namespace scen {

using Json = nlohmann::json;

// A JSON value as a message shows it: compact (an object or array at most 80 characters, a
// string or number at most 1,000), and never failing — bytes
// that are not UTF-8 cannot reach a value (the parser and --set refuse them), but if they did
// they would print as U+FFFD instead of throwing from the serializer. Every InputError that
// shows a JSON value takes it through here.
std::string message_text(const Json& v);

class JsonReader {
 public:
  // `j` must outlive the reader. `path` is this value's JSON path ("" for the root).
  JsonReader(const Json& j, std::string path);

  const Json& json() const { return *j_; }
  const std::string& path() const { return path_; }
  std::string child_path(std::string_view key) const;
  std::string index_path(size_t i) const;

  // Require this value to be an object / array, else throw InputError.
  void expect_object() const;
  void expect_array() const;

  bool has(std::string_view key) const;
  // Sub-object or sub-array reader (marks the key as used). at() throws when missing.
  JsonReader at(std::string_view key);
  std::optional<JsonReader> get(std::string_view key);
  // Elements of an array value.
  size_t size() const;
  JsonReader element(size_t i) const;

  // Scalars. The `def` overloads return the default when the key is absent.
  std::string string(std::string_view key);
  std::string string(std::string_view key, const std::string& def);
  std::string choice(std::string_view key, std::initializer_list<std::string_view> allowed,
                     const std::string& def);
  std::string choice(std::string_view key, const std::vector<std::string>& allowed,
                     const std::string& def);
  bool boolean(std::string_view key, bool def);
  int64_t integer(std::string_view key, int64_t min, int64_t max);
  int64_t integer(std::string_view key, int64_t def, int64_t min, int64_t max);
  double number(std::string_view key, double def, double min, double max);
  // Quantities with units (strings such as "400Gbps"); plain numbers are refused for time
  // and rate (ambiguous), accepted for bytes.
  sim::Time time(std::string_view key, sim::Time min = sim::Time(0));
  sim::Time time(std::string_view key, sim::Time def, sim::Time min);
  int64_t rate_bps(std::string_view key);
  int64_t rate_bps(std::string_view key, int64_t def);
  int64_t bytes(std::string_view key, int64_t min = 0);
  int64_t bytes(std::string_view key, int64_t def, int64_t min);

  // Throws InputError for the first key present in the object but never read.
  void finish() const;

  // Error helper: the value at `key` rendered compactly (for messages).
  std::string value_text(std::string_view key) const;

 private:
  const Json& value_at(std::string_view key);
  const Json* j_;
  std::string path_;
  std::set<std::string, std::less<>> used_;
};

// The value of `key` among `values` (an enum's, each named by its to_string), `def` when
// absent; another name is refused with the list of names.
template <typename E, size_t N>
std::vector<std::string> enum_names(const std::array<E, N>& values) {
  std::vector<std::string> names;
  for (const E v : values) names.emplace_back(to_string(v));
  return names;
}
template <typename E, size_t N>
E choose(JsonReader& r, std::string_view key, const std::array<E, N>& values, E def) {
  const std::string name = r.choice(key, enum_names(values), to_string(def));
  for (const E v : values) {
    if (name == to_string(v)) return v;
  }
  return def;
}

// While set (a test: tests/schema_test.cpp), every key a reader is asked about — read or only
// looked for — goes into `log` by its path, array indices written "[]"
// ("workload.flows[].src"): the keys the loader knows, which the scenario schema
// (scenario_schema.cpp) must describe. One log per thread; nullptr stops it.
void set_key_log(std::set<std::string>* log);

// Parse a JSON file; syntax errors become InputError naming the file, line and column.
Json read_json_file(const std::string& file);

// JSON text from `where` (a file name): nested at most kMaxJsonDepth deep (deeper input would
// exhaust the stack where JSON is printed), numbers within a double's range; else InputError
// naming where:line:col.
constexpr int kMaxJsonDepth = 256;
constexpr int64_t kMaxJsonFileBytes = int64_t{256} << 20;  // read_json_file reads no more
Json parse_json_text(const std::string& text, const std::string& where);
// A value written on a command line (--set, a sweep's literal, topo gen): JSON when it parses,
// else the bare word as a string ("400Gbps"); a number beyond a double's range or nesting
// deeper than kMaxJsonDepth is refused with `where`.
Json parse_cli_value(const std::string& text, const std::string& where);

}  // namespace scen
