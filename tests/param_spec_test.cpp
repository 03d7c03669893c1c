// Parameters declared next to their structs (sim/param_spec.hpp) and the loader's fields made
// from them (scenarios/loader/param_table.hpp, fields_from): a nested member, bounds, choices and
// a value written in a form of its own; and the tables the models declare.
#include "sim/param_spec.hpp"

#include <catch2/catch.hpp>
#include <set>

#include "models/cc/cc_params.hpp"
#include "models/collectives/collective_spec.hpp"
#include "models/ib/ib_cc_params.hpp"
#include "models/ib/ib_params.hpp"
#include "models/nic_params.hpp"
#include "models/qos_params.hpp"
#include "models/roce/dcqcn_params.hpp"
#include "models/roce/ecn_marker.hpp"
#include "models/roce/pfc_params.hpp"
#include "models/sharp/sharp_params.hpp"
#include "models/switch.hpp"
#include "models/tcp/tcp_params.hpp"
#include "scenarios/loader/input_error.hpp"
#include "scenarios/loader/param_table.hpp"

namespace {

using scen::Json;
using scen::JsonReader;

enum class Mode : uint8_t { Slow, Fast };

struct Inner {
  sim::Time wait{1000};
};

struct Toy {
  Inner inner;
  Mode mode = Mode::Slow;
  double share = 0.5;
  std::vector<int> list;
};

const sim::ParamTable<Toy>& toy_table() {
  static const sim::ParamTable<Toy> t = {
      sim::time_param<Toy>(
          "wait", [](auto& s) -> auto& { return s.inner.wait; }, "a nested time", sim::Time(1)),
      sim::choice_param<Toy>(
          "mode", &Toy::mode, "slow | fast",
          {{"slow", static_cast<int64_t>(Mode::Slow)}, {"fast", static_cast<int64_t>(Mode::Fast)}}),
      sim::number_param<Toy>("share", &Toy::share, "a fraction", 0.0, 1.0),
      sim::custom_param<Toy>("list", "list", &Toy::list, "integers"),
  };
  return t;
}

const scen::FieldTable<Toy>& toy_fields() {
  static const scen::FieldTable<Toy> t = scen::fields_from(
      toy_table(), {scen::Field<Toy>{"list", "", "",
                                     [](JsonReader& r, Toy& s) {
                                       if (r.has("list"))
                                         s.list = r.at("list").json().get<std::vector<int>>();
                                     },
                                     [](const Toy& s) { return Json(s.list); }}});
  return t;
}

Toy read(const Json& j) {
  Toy t;
  JsonReader r(j, "toy");
  scen::read_fields(r, toy_fields(), t);
  r.finish();
  return t;
}

template <typename S>
void check_table(const sim::ParamTable<S>& t) {
  std::set<std::string> keys;
  const S defaults{};
  for (const auto& p : t) {
    INFO(p.key);
    CHECK(keys.insert(p.key).second);  // each key once
    CHECK_FALSE(p.meaning.empty());
    if (p.unit == sim::ParamUnit::Custom) {
      CHECK(static_cast<bool>(p.custom_copy));
      CHECK_FALSE(p.custom_unit.empty());
    } else if (p.unit == sim::ParamUnit::Number) {
      CHECK(static_cast<bool>(p.get_number));
      CHECK(p.min_number <= p.get_number(defaults));
      CHECK(p.get_number(defaults) <= p.max_number);
    } else {
      REQUIRE(static_cast<bool>(p.get));
      const int64_t v = p.get(defaults);
      if (p.unit == sim::ParamUnit::Integer) {
        CHECK(p.min <= v);
        CHECK(v <= p.max);
      }
      if (p.unit == sim::ParamUnit::Choice) {  // the default is one of the choices
        bool named = false;
        for (const auto& c : p.choices) named = named || c.second == v;
        CHECK(named);
      }
    }
  }
}

}  // namespace

TEST_CASE("param spec: a field made from a description reads, writes, bounds and copies",
          "[unit][params]") {
  const Toy t = read({{"wait", "2us"}, {"mode", "fast"}, {"share", 0.25}, {"list", {1, 2}}});
  CHECK(t.inner.wait == sim::Time(2'000'000));
  CHECK(t.mode == Mode::Fast);
  CHECK(t.share == 0.25);
  CHECK(t.list == std::vector<int>{1, 2});
  const Json echo = scen::write_fields(toy_fields(), t);
  CHECK(echo["wait"] == "2us");
  CHECK(echo["mode"] == "fast");
  CHECK(echo["share"] == 0.25);
  CHECK(echo["list"] == Json::array({1, 2}));
  // Absent keys keep the struct's values.
  const Toy d = read(Json::object());
  CHECK(d.inner.wait == sim::Time(1000));
  CHECK(d.mode == Mode::Slow);
  // Bounds and choices, with the path.
  CHECK_THROWS_AS(read({{"wait", "0ns"}}), scen::InputError);
  CHECK_THROWS_AS(read({{"share", 1.5}}), scen::InputError);
  try {
    read({{"mode", "medium"}});
    FAIL("an unknown choice was accepted");
  } catch (const scen::InputError& e) {
    CHECK(std::string(e.what()).find("toy.mode") != std::string::npos);
  }
  // Every field copies (an override's patch applies through it), the custom one by its member.
  Toy to;
  for (const auto& f : toy_fields()) {
    INFO(f.key);
    REQUIRE(static_cast<bool>(f.copy));
    f.copy(t, to);
  }
  CHECK(to.inner.wait == t.inner.wait);
  CHECK(to.mode == t.mode);
  CHECK(to.list == t.list);
  // A choice's schema lists its names; the unit and meaning come from the description.
  const auto& mode = toy_fields()[1];
  CHECK(mode.unit == "choice");
  CHECK(mode.meaning == "slow | fast");
  CHECK(mode.schema == Json{{"enum", {"slow", "fast"}}});
}

TEST_CASE("param spec: the models' tables name each key once, with a meaning and a valid default",
          "[unit][params]") {
  check_table(models::switch_param_table());
  check_table(models::port_param_table());
  check_table(models::nic_param_table());
  check_table(models::host_path_param_table());
  check_table(models::pfc_param_table());
  check_table(models::watchdog_override_param_table());
  check_table(models::ecn_param_table());
  check_table(models::dcqcn_param_table());
  check_table(models::cc_param_table());
  check_table(models::tcp_param_table());
  check_table(models::qos_param_table());
  check_table(models::ib_param_table());
  check_table(models::ib_cc_param_table());
  check_table(models::sharp_param_table());
  check_table(models::collective_param_table());
}
