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
