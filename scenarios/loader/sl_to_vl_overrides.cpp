#include "scenarios/loader/sl_to_vl_overrides.hpp"

#include <string>

#include "models/ib/ib_params.hpp"
#include "scenarios/loader/input_error.hpp"

namespace scen {

void check_sl_to_vl_overrides(const Scenario& s) {
  for (const SwitchOverride& o : s.overrides) {
    if (!o.set.contains("sl_to_vl")) continue;
    const std::string path = o.path + ".set.sl_to_vl";
    const Json& list = o.set["sl_to_vl"];
    if (s.fabric_kind != FabricKind::Infiniband) {
      throw InputError(path, list.dump(), "no sl_to_vl on a RoCE fabric (InfiniBand only)");
    }
    if (o.priority >= 0) {
      throw InputError(o.path + ".priority", std::to_string(o.priority),
                       "no priority with \"sl_to_vl\" (a table per switch or port)");
    }
    if (!list.is_array() || list.empty() || list.size() > models::kIbServiceLevels) {
      throw InputError(path, list.dump(), "a list of 1 to 16 VLs (SL 0, 1, ...)");
    }
    for (size_t sl = 0; sl < list.size(); ++sl) {
      const Json& v = list[sl];
      if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() >= s.ib.data_vls) {
        throw InputError(path + "[" + std::to_string(sl) + "]", v.dump(),
                         "a VL below data_vls (" + std::to_string(s.ib.data_vls) + ")");
      }
    }
  }
}

bool has_sl_to_vl_overrides(const Scenario& s) {
  for (const SwitchOverride& o : s.overrides) {
    if (o.set.contains("sl_to_vl")) return true;
  }
  return false;
}

std::vector<uint8_t> switch_sl_to_vl(const Scenario& s, int node, size_t ports) {
  constexpr size_t kSls = models::kIbServiceLevels;
  std::vector<uint8_t> table(ports * kSls);
  for (size_t port = 0; port < ports; ++port) {
    for (size_t sl = 0; sl < kSls; ++sl) {
      table[port * kSls + sl] = s.ib.vl_of(static_cast<uint8_t>(sl));
    }
  }
  for (const SwitchOverride& o : s.overrides) {
    if (!o.set.contains("sl_to_vl") || (o.node >= 0 && o.node != node)) continue;
    const Json& list = o.set["sl_to_vl"];
    for (size_t port = 0; port < ports; ++port) {
      if (o.port >= 0 && static_cast<size_t>(o.port) != port) continue;
      for (size_t sl = 0; sl < kSls; ++sl) {
        table[port * kSls + sl] = sl < list.size() ? list[sl].get<uint8_t>() : 0;
      }
    }
  }
  return table;
}

}  // namespace scen
