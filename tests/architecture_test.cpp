// ARCHITECTURE.md stays true: every file its tables name exists, under the folder of the
// section naming it ("## models/ — behaviour": `roce/dcqcn.{hpp,cpp}` is models/roce/dcqcn.hpp
// and models/roce/dcqcn.cpp; `loader/params.*` or `clusters/*.json` at least one matching
// file; `dir/` a folder).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

const std::string kSource = RDMASIM_SOURCE_DIR;

// `stem.{a,b}` -> stem.a, stem.b; anything else as it is.
std::vector<std::string> expand_braces(const std::string& name) {
  const size_t open = name.find('{');
  const size_t close = name.find('}', open);
  if (open == std::string::npos || close == std::string::npos) return {name};
  std::vector<std::string> out;
  std::istringstream parts(name.substr(open + 1, close - open - 1));
  std::string part;
  while (std::getline(parts, part, ',')) {
    out.push_back(name.substr(0, open) + part + name.substr(close + 1));
  }
  return out;
}

bool exists(const std::string& path) {
  namespace fs = std::filesystem;
  const size_t star = path.find('*');
  if (star != std::string::npos) {
    // One wildcard in the last component (`stem.*`, `*.json`, `dir/*`): some entry matches.
    const fs::path pattern(path);
    const fs::path dir = pattern.parent_path();
    const std::string name = pattern.filename().string();
    const size_t at = name.find('*');
    if (at == std::string::npos || !fs::is_directory(dir)) return false;
    const std::string prefix = name.substr(0, at), suffix = name.substr(at + 1);
    for (const auto& e : fs::directory_iterator(dir)) {
      const std::string f = e.path().filename().string();
      if (f.size() >= prefix.size() + suffix.size() && f.rfind(prefix, 0) == 0 &&
          f.compare(f.size() - suffix.size(), suffix.size(), suffix) == 0) {
        return true;
      }
    }
    return false;
  }
  if (!path.empty() && path.back() == '/') return fs::is_directory(path);
  return fs::is_regular_file(path);
}

}  // namespace

TEST_CASE("ARCHITECTURE.md: every file its tables name exists", "[unit][docs]") {
  std::ifstream in(kSource + "/ARCHITECTURE.md");
  REQUIRE(in);
  std::string line, folder;
  int named = 0;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) {
      // "## sim/ — the kernel": the folder of the rows below; other sections name none.
      const size_t slash = line.find("/ ");
      folder = slash != std::string::npos && line.find(' ', 3) == slash + 1
                   ? line.substr(3, slash - 3 + 1)
                   : "";
      continue;
    }
    if (folder.empty() || line.rfind("| `", 0) != 0) continue;
    const std::string cell = line.substr(1, line.find('|', 1) - 1);
    for (size_t a = cell.find('`'); a != std::string::npos; a = cell.find('`', a + 1)) {
      const size_t b = cell.find('`', a + 1);
      if (b == std::string::npos) break;
      for (const std::string& name : expand_braces(cell.substr(a + 1, b - a - 1))) {
        INFO(folder << name << " (ARCHITECTURE.md: " << line.substr(0, 80) << ")");
        CHECK(exists(kSource + "/" + folder + name));
        ++named;
      }
      a = b;
    }
  }
  // The tables of sim/, topologies/, models/, scenarios/ and tools/ name well over 100 files.
  CHECK(named > 100);
}

namespace {

// The layer of a project path for the include rule (ARCHITECTURE.md, "Dependencies point one
// way"): top-level folders, and inside scenarios/ its sub-layers. Lower numbers come first; a
// file may include its own layer and lower ones, never a sibling of its rank.
struct Layer {
  std::string name;
  int rank = -1;
};

Layer layer_of(const std::string& path) {
  static const std::vector<std::pair<std::string, int>> kTop = {
      {"sim", 0}, {"topologies", 0}, {"models", 1}, {"scenarios", 2}, {"tools", 3}, {"bench", 3}};
  static const std::vector<std::pair<std::string, int>> kScenarios = {
      {"loader", 0},  {"import", 1}, {"builder", 1}, {"traces", 1}, {"run", 2},
      {"outputs", 3}, {"sweep", 4},  {"chakra", 4},  {"api", 5}};
  const size_t slash = path.find('/');
  const std::string top = path.substr(0, slash);
  for (const auto& [name, rank] : kTop) {
    if (top != name) continue;
    if (top == "scenarios" && slash != std::string::npos) {
      const std::string sub = path.substr(slash + 1, path.find('/', slash + 1) - slash - 1);
      for (const auto& [s, r] : kScenarios) {
        if (sub == s) return {"scenarios/" + s, 10 * rank + r};
      }
    }
    return {top, 10 * rank};
  }
  return {};
}

// sim/ and topologies/ include nothing of the project but themselves.
bool may_include(const Layer& from, const Layer& to) {
  if (from.name == to.name) return true;
  if (from.name == "sim" || from.name == "topologies") return false;
  if (from.rank / 10 != to.rank / 10) return to.rank / 10 < from.rank / 10;
  return to.rank < from.rank;  // inside scenarios/: a lower sub-layer only
}

}  // namespace

TEST_CASE("every include points down the layers: no cycle, no upward or sideways include",
          "[unit][docs]") {
  namespace fs = std::filesystem;
  int checked = 0;
  for (const char* top : {"sim", "topologies", "models", "scenarios", "tools", "bench"}) {
    for (const auto& e : fs::recursive_directory_iterator(kSource + "/" + top)) {
      const std::string ext = e.path().extension().string();
      if (!e.is_regular_file() || (ext != ".hpp" && ext != ".cpp")) continue;
      const std::string rel = fs::relative(e.path(), kSource).generic_string();
      const Layer from = layer_of(rel);
      std::ifstream in(e.path());
      std::string line;
      while (std::getline(in, line)) {
        if (line.rfind("#include \"", 0) != 0) continue;
        const std::string target = line.substr(10, line.find('"', 10) - 10);
        const Layer to = layer_of(target);
        if (to.rank < 0) continue;  // a file of its own folder, by relative name
        INFO(rel << " includes " << target);
        CHECK(may_include(from, to));
        ++checked;
      }
    }
  }
  CHECK(checked > 500);
}
