// Every shipped scenario loads on each of its fabrics, has a wall-time budget for
// `rdmasim_bench --shipped`, and is listed in the README's table with that budget.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "scenarios/loader/scenario.hpp"

namespace {

const std::string kSource = RDMASIM_SOURCE_DIR;

std::vector<std::string> shipped_scenarios() {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(kSource + "/scenarios")) {
    if (e.is_regular_file() && e.path().extension() == ".json") {
      names.push_back(e.path().filename().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string slurp(const std::string& file) {
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("shipped scenarios: each loads on every fabric it lists", "[scenario][shipped]") {
  const auto names = shipped_scenarios();
  REQUIRE(names.size() >= 30);
  for (const std::string& name : names) {
    INFO(name);
    const std::string file = kSource + "/scenarios/" + name;
    const scen::Scenario first = scen::load_scenario_file(file);
    CHECK(!first.fabric.host_node.empty());
    for (size_t i = 1; i < first.fabrics.size(); ++i) {
      scen::LoadOptions o;
      o.fabric = first.fabrics[i];
      CHECK_NOTHROW(scen::load_scenario_file(file, o));
    }
  }
}

TEST_CASE("shipped scenarios: each has a wall-time budget, quoted in the README",
          "[scenario][shipped]") {
  std::map<std::string, std::string> budgets;
  std::istringstream in(slurp(kSource + "/bench/shipped_budgets.txt"));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string name, seconds;
    if (!(ls >> name) || name[0] == '#') continue;
    REQUIRE(ls >> seconds);
    budgets[name] = seconds;
  }
  const std::string readme = slurp(kSource + "/README.md");
  for (const std::string& name : shipped_scenarios()) {
    INFO(name);
    CHECK(budgets.count(name) == 1);
    // Its row: "| `scenarios/<name>` | what | <budget> s |"; a row naming two files (", `b`")
    // quotes their sum.
    const size_t row = readme.find("| `scenarios/" + name + "` |");
    const size_t shared_row =
        std::min(readme.find(", `" + name + "`"), readme.find("| `scenarios/" + name + "`, `"));
    CHECK((row != std::string::npos || shared_row != std::string::npos));
    if (row != std::string::npos && budgets.count(name) == 1) {
      const std::string text = readme.substr(row, readme.find('\n', row) - row);
      CHECK_THAT(text, Catch::EndsWith("| " + budgets[name] + " s |"));
    }
  }
  for (const auto& [name, seconds] : budgets) {
    INFO(name);
    CHECK(std::filesystem::exists(kSource + "/scenarios/" + name));
  }
}
