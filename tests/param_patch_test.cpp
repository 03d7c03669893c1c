// Overrides are typed when the scenario loads (ParamPatch, SchedulerSetting): a patch carries the
// keys it sets and changes only those when applied; every parameter an override may set can be
// copied, so the builder never reads JSON.
#include <catch2/catch.hpp>

#include "scenarios/loader/params.hpp"
#include "scenarios/loader/qos_section.hpp"
#include "scenarios/loader/scenario.hpp"
#include "scenarios/loader/watchdog_section.hpp"

namespace {

using scen::Json;
using scen::JsonReader;

template <typename S>
void check_all_copyable(const scen::FieldTable<S>& table) {
  for (const auto& f : table) {
    INFO(f.key);
    CHECK(static_cast<bool>(f.copy));
  }
}

}  // namespace

TEST_CASE("param patch: every overridable parameter can be applied", "[unit]") {
  check_all_copyable(scen::switch_fields());
  check_all_copyable(scen::port_fields());
  check_all_copyable(scen::ecn_port_fields());
  check_all_copyable(scen::watchdog_override_fields());
}

TEST_CASE("param patch: applying changes only the keys it sets", "[unit]") {
  const Json set = {{"queue_limit", "10KB"}, {"alpha", "1/4"}};
  JsonReader r(set, "overrides[0].set");
  const auto patch = scen::read_patch(r, scen::port_fields());
  CHECK(patch.sets("queue_limit"));
  CHECK(patch.sets("alpha"));
  CHECK_FALSE(patch.sets("reserve"));
  models::SwitchParams target;
  target.buffer.reserve_bytes = 1234;
  target.latency = sim::Time(777);
  patch.apply(target);
  CHECK(target.buffer.queue_limit_bytes == 10'000);
  CHECK(target.buffer.alpha.num == 1);
  CHECK(target.buffer.alpha.den == 4);
  CHECK(target.buffer.reserve_bytes == 1234);  // not in the patch: kept
  CHECK(target.latency == sim::Time(777));

  const Json sw = {{"forwarding", "store-and-forward"}, {"buffer", "2MB"}};
  JsonReader rs(sw, "overrides[1].set");
  const auto wide = scen::read_patch(rs, scen::switch_fields());
  models::SwitchParams p;
  p.latency = sim::Time(5);
  wide.apply(p);
  CHECK(p.forwarding == models::Forwarding::StoreAndForward);
  CHECK(p.buffer.buffer_bytes == 2'000'000);
  CHECK(p.latency == sim::Time(5));
}

TEST_CASE("param patch: a scheduler setting names only its priorities", "[unit]") {
  const auto one = scen::read_scheduler_setting(Json("strict"), "x", 5);
  for (int p = 0; p < models::kPriorities; ++p) CHECK(one[p].has_value() == (p == 5));
  CHECK(*one[5] == 0u);
  const auto obj = scen::read_scheduler_setting(Json{{"3", 2}, {"1", "strict"}}, "x", -1);
  for (int p = 0; p < models::kPriorities; ++p) CHECK(obj[p].has_value() == (p == 1 || p == 3));
  CHECK(*obj[3] == 2u);
  CHECK(*obj[1] == 0u);
  CHECK_THROWS_AS(scen::read_scheduler_setting(Json{{"9", 1}}, "x", -1), scen::InputError);
}
