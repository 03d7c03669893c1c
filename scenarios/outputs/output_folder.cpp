#include "scenarios/outputs/output_folder.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "scenarios/loader/fabric_section.hpp"
#include "scenarios/loader/input_error.hpp"
#include "scenarios/loader/json_reader.hpp"

namespace scen {
namespace fs = std::filesystem;

namespace {

// A run into several fabrics writes one folder per fabric, named as the fabric.
const std::vector<std::string>& fabric_folders() {
  return known_fabrics();
}

bool has_summary_of_a_run(const fs::path& dir) {
  std::ifstream in(dir / "summary.json");
  if (!in) return false;
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    const Json j = parse_json_text(text, (dir / "summary.json").string());  // depth-capped
    return j.is_object() && j.contains("scenario") && j.contains("results");
  } catch (const std::exception&) {
    return false;  // not rdmasim's
  }
}

// `path` itself when it exists, else its nearest existing ancestor ("." for a relative path
// none of whose parts exists).
fs::path nearest_existing(const fs::path& path) {
  fs::path p = path;
  std::error_code ec;
  while (!p.empty() && !fs::exists(p, ec)) p = p.parent_path();
  return p.empty() ? fs::path(".") : p;
}

// Why `dir` (an existing path) cannot take new files, or "" when it can.
std::string not_writable(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return dir.string() + " is not a folder";
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    return "cannot write into " + dir.string() + ": " + std::strerror(errno);
  }
  return "";
}

}  // namespace

const std::vector<std::string>& run_output_names() {
  static const std::vector<std::string> names = {
      "summary.json",        "flows.csv",       "links.csv",
      "classes.csv",         "nics.csv",        "timeseries.csv",
      "rates.csv",           "pfc.csv",         "credits.csv",
      "ib_cc.csv",           "collectives.csv", "training.csv",
      "training_groups.csv", "chakra.csv", "deadlocks.json",  "run_stats.json",
      "comparison.csv",      "fct_by_size.csv", "report.html"};
  return names;
}

bool is_earlier_run(const std::string& dir) {
  const fs::path d(dir);
  if (has_summary_of_a_run(d)) return true;
  std::error_code ec;
  if (!fs::exists(d / "comparison.csv", ec)) return false;
  for (const std::string& f : fabric_folders()) {
    if (has_summary_of_a_run(d / f)) return true;
  }
  return false;
}

void check_output_folder(const std::string& dir, bool force) {
  const fs::path d(dir);
  std::error_code ec;
  if (fs::exists(d, ec)) {
    if (!fs::is_directory(d, ec)) {
      throw InputError("--out", dir, "a folder for the run's files (this is a file)");
    }
    const std::string why = not_writable(d);
    if (!why.empty())
      throw InputError("--out", dir, "a folder this user can write to (" + why + ")");
    if (!force && fs::directory_iterator(d, ec) != fs::directory_iterator() &&
        !is_earlier_run(dir)) {
      throw InputError("--out", dir,
                       "a new or empty folder, or an earlier run's (this one holds other files; "
                       "--force writes into it anyway, replacing only the files a run writes)");
    }
    return;
  }
  const fs::path base = nearest_existing(d.parent_path());
  const std::string why = not_writable(base);
  if (!why.empty()) {
    throw InputError("--out", dir, "a folder that can be created (" + why + ")");
  }
}

void check_output_file(const std::string& option, const std::string& file) {
  const fs::path f(file);
  std::error_code ec;
  if (fs::is_directory(f, ec)) throw InputError(option, file, "a file name (this is a folder)");
  if (fs::exists(f, ec) && ::access(f.c_str(), W_OK) != 0) {
    throw InputError(option, file,
                     std::string("a file this user can replace (") + std::strerror(errno) + ")");
  }
  const fs::path base = nearest_existing(f.parent_path());
  const std::string why = not_writable(base);
  if (!why.empty()) throw InputError(option, file, "a file in a writable folder (" + why + ")");
}

void clear_earlier_run(const std::string& dir) {
  const fs::path d(dir);
  std::error_code ec;
  for (const std::string& name : run_output_names()) fs::remove(d / name, ec);
  for (const std::string& f : fabric_folders()) {
    if (!fs::is_directory(d / f, ec)) continue;
    for (const std::string& name : run_output_names()) fs::remove(d / f / name, ec);
    if (fs::is_empty(d / f, ec)) fs::remove(d / f, ec);
  }
}

}  // namespace scen
