// Every model parameter in one place: the field tables of the parameter structs (params.hpp and
// the *_fields / *_section files), each under the scenario key that holds it. From this list come
// `rdmasim run --list-params`, the parameter reference (docs/parameters.md, `rdmasim schema
// --reference`) and the parameter sections of the scenario format's JSON Schema
// (scenario_schema.hpp).
#pragma once

#include <string>
#include <vector>

#include "scenarios/loader/param_table.hpp"

namespace scen {

// One parameter as documented: key, unit, default (as the effective configuration writes it),
// meaning, and the JSON Schema of its value.
struct ParamRow {
  std::string key;
  std::string unit;
  Json default_value;
  std::string meaning;
  Json schema;
};

// The parameters of one scenario object ("fabric.switch", "infiniband.cc", ...).
struct ParamSection {
  std::string path;
  std::vector<ParamRow> rows;
};

template <typename S>
ParamSection describe_fields(std::string path, const FieldTable<S>& table, const S& defaults) {
  ParamSection section{std::move(path), {}};
  for (const auto& f : table) {
    section.rows.push_back({f.key, f.unit, f.write(defaults), f.meaning,
                            f.schema.is_null() ? unit_schema(f.unit) : f.schema});
  }
  return section;
}

// Every parameter section, in the order --list-params prints them. A path may appear twice
// (fabric.switch: switch-wide, then per-port keys).
const std::vector<ParamSection>& parameter_sections();

// The rows of every section at `path`, in order.
std::vector<ParamRow> parameters_at(const std::string& path);

// `rdmasim run --list-params`: one aligned line per parameter, then the rules of overrides.
std::string list_parameters();

// docs/parameters.md: a table per section (key, unit, default, meaning), generated.
std::string parameters_markdown();

}  // namespace scen
