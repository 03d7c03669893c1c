// A sweep file: a base scenario, the axes that vary it, how the axes combine, repeats with
// derived seeds, and constraints that skip combinations. Read and checked here (InputError
// with the JSON path); sweep_points.hpp expands it into points.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scenarios/loader/json_reader.hpp"

namespace scen::sweep {

struct Axis {
  std::string name;          // results.csv column; defaults to the path
  std::string path;          // where the value goes, exactly as for --set
  std::vector<Json> values;  // from "values", or expanded from "range"
  std::string json_path;     // "axes[2]", for messages
};

enum class CombineMode { Product, Zip };

// A rule that drops points. "skip": every listed axis has the listed value. "require": the
// comparison `left op right` holds, each operand an axis name or a literal number/quantity.
struct Constraint {
  enum class Kind { Skip, Require } kind = Kind::Skip;
  std::vector<std::pair<size_t, Json>> skip;  // (axis index, value)
  struct Operand {
    int axis = -1;  // axis index, or -1 for the literal
    Json literal;
  };
  Operand left, right;
  std::string op;         // < <= > >= == !=
  std::string json_path;  // "constraints[1]"
  std::string text;       // as written, for messages
};

struct SweepSpec {
  std::string name;
  std::string source_file;  // the sweep file ("" when read from memory)
  Json base;                // the base scenario, unvalidated: each point validates its own
  std::string base_file;    // "" when the base is inline
  std::string base_dir;     // where the base's relative paths resolve
  uint64_t base_seed = 1;   // the base's top-level "seed" (default 1, as for a run)
  std::vector<Axis> axes;
  CombineMode mode = CombineMode::Product;
  int repeats = 1;
  std::vector<Constraint> constraints;
};

// Reads a sweep file; "base" (a path) resolves against the sweep file's folder.
SweepSpec read_sweep_file(const std::string& file);
// Same, from JSON in memory; `dir` is where relative paths resolve.
SweepSpec read_sweep_json(const Json& root, const std::string& dir,
                          const std::string& source_file = "");

// The result columns that are not axes; an axis may not take one of these names.
bool is_reserved_column(const std::string& name);

}  // namespace scen::sweep
