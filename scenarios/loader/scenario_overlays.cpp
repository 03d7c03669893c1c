#include "scenarios/loader/scenario_overlays.hpp"

#include <filesystem>
#include <set>

#include "scenarios/loader/input_error.hpp"

namespace scen {
namespace {

namespace fs = std::filesystem;

// The key under which an included file is remembered for cycle detection. weakly_canonical
// fails on names the operating system refuses (a component longer than NAME_MAX, a loop of
// symbolic links): those are refused as the include they came from, never thrown as
// std::filesystem_error.
std::string include_key(const fs::path& file, const std::string& json_path,
                        const std::string& value) {
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(file, ec);
  if (ec) throw InputError(json_path, value, "a usable file name (" + ec.message() + ")");
  return canonical.string();
}

// Objects merge key by key (recursively); anything else is replaced by the overlay.
void deep_merge(Json& base, const Json& overlay) {
  if (!base.is_object() || !overlay.is_object()) {
    base = overlay;
    return;
  }
  for (auto it = overlay.begin(); it != overlay.end(); ++it) {
    if (base.contains(it.key())) {
      deep_merge(base[it.key()], it.value());
    } else {
      base[it.key()] = it.value();
    }
  }
}

// "include": ["a.json", "b.json"] — the included files merge in order (a later one wins over
// an earlier one), then the including file's own keys win over all of them.
Json resolve_includes(const Json& root, const std::string& base_dir, std::set<std::string>& seen,
                      const std::string& where) {
  if (!root.is_object() || !root.contains("include")) return root;
  const Json& inc = root["include"];
  if (!inc.is_array())
    throw InputError(where + "include", message_text(inc), "an array of file names");
  Json merged = Json::object();
  for (size_t i = 0; i < inc.size(); ++i) {
    const std::string path = where + "include[" + std::to_string(i) + "]";
    if (!inc[i].is_string()) throw InputError(path, message_text(inc[i]), "a file name");
    fs::path file = inc[i].get<std::string>();
    if (!file.is_absolute()) file = fs::path(base_dir) / file;
    const std::string key = include_key(file, path, message_text(inc[i]));
    if (seen.count(key)) throw InputError(path, message_text(inc[i]), "no include cycle");
    seen.insert(key);
    const Json sub = read_json_file(file.string());
    if (!sub.is_object()) throw InputError(file.string(), message_text(sub), "a JSON object");
    deep_merge(merged, resolve_includes(sub, file.parent_path().string(), seen,
                                        file.filename().string() + ": "));
    seen.erase(key);
  }
  Json own = root;
  own.erase("include");
  // A fabric object from the includes (a calibration's params.json) applies to whichever fabric
  // the including file names ("fabric": "infiniband", or a list): its keys join that fabric's
  // section, where the including file's own keys still win, and keys the fabric does not take
  // are refused there with their path. Never dropped.
  if (own.contains("fabric") && !own["fabric"].is_object() && merged.contains("fabric") &&
      merged["fabric"].is_object()) {
    const Json included = merged["fabric"];
    merged.erase("fabric");
    const Json& named = own["fabric"];
    for (const Json& n : named.is_array() ? named : Json::array({named})) {
      if (!n.is_string()) continue;  // the fabric's own check names it
      const std::string section = n.get<std::string>();
      if (section != "roce" && section != "infiniband") continue;
      if (!merged.contains(section)) merged[section] = Json::object();
      deep_merge(merged[section], included);
    }
  }
  deep_merge(merged, own);
  return merged;
}

}  // namespace

Json resolve_includes(const Json& root, const std::string& base_dir,
                      const std::string& source_file) {
  std::set<std::string> seen;
  if (!source_file.empty()) seen.insert(include_key(source_file, source_file, ""));
  return resolve_includes(root, base_dir, seen, "");
}

void apply_set(Json& root, const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw InputError("--set", assignment, "path.to.key=value");
  }
  const std::string path = assignment.substr(0, eq);
  const std::string text = assignment.substr(eq + 1);
  require_utf8(path, "--set", "a path of UTF-8 text");  // its keys become JSON keys
  Json value = parse_cli_value(text, "--set " + path);
  Json* cur = &root;
  size_t i = 0;
  std::string walked;
  while (i < path.size()) {
    size_t j = path.find_first_of(".[", i);
    std::string key = path.substr(i, j == std::string::npos ? std::string::npos : j - i);
    if (!key.empty()) {
      // An absent section (null) becomes an object, so --set can add keys the file omits.
      if (!cur->is_object() && !cur->is_null()) {
        throw InputError("--set " + path, walked,
                         "an object at " + (walked.empty() ? "(root)" : walked));
      }
      cur = &(*cur)[key];
      walked += (walked.empty() ? "" : ".") + key;
    }
    if (j == std::string::npos) break;
    if (path[j] == '[') {
      const size_t close = path.find(']', j);
      if (close == std::string::npos) throw InputError("--set " + path, path, "a closing ]");
      size_t idx = 0;
      try {
        idx = std::stoul(path.substr(j + 1, close - j - 1));
      } catch (const std::exception&) {
        throw InputError("--set " + path, path.substr(j, close - j + 1), "an array index [N]");
      }
      // Topology links and nodes live under "topology": allow "links[3]" as a shorthand.
      if (cur->is_null() && walked.find('.') == std::string::npos &&
          (walked == "links" || walked == "nodes") && root.contains("topology")) {
        root.erase(walked);
        cur = &root["topology"][walked];
        walked = "topology." + walked;
      }
      if (!cur->is_array() || idx >= cur->size()) {
        throw InputError("--set " + path,
                         cur->is_array() ? std::to_string(cur->size()) + " elements" : "",
                         "an existing array element at " + walked);
      }
      cur = &(*cur)[idx];
      walked += "[" + std::to_string(idx) + "]";
      i = close + 1;
      if (i < path.size() && path[i] == '.') ++i;
    } else {
      i = j + 1;
    }
  }
  *cur = value;
}

}  // namespace scen
