#include "scenarios/loader/sl_to_vl_overrides.hpp"

#include <string>

#include "models/ib/ib_params.hpp"
#include "scenarios/loader/input_error.hpp"

namespace scen {

std::vector<uint8_t> read_sl_to_vl_override(JsonReader& set, const SwitchOverride& o,
                                            const Scenario& s) {
  const JsonReader r = set.at("sl_to_vl");
  const std::string& path = r.path();
  const Json& list = r.json();
  if (s.fabric_kind != FabricKind::Infiniband) {
    throw InputError(path, message_text(list), "no sl_to_vl on a RoCE fabric (InfiniBand only)");
  }
  if (o.priority >= 0) {
    throw InputError(o.path + ".priority", std::to_string(o.priority),
                     "no priority with \"sl_to_vl\" (a table per switch or port)");
  }
  if (!list.is_array() || list.empty() || list.size() > models::kIbServiceLevels) {
    throw InputError(path, message_text(list), "a list of 1 to 16 VLs (SL 0, 1, ...)");
  }
  std::vector<uint8_t> vls;
  for (size_t sl = 0; sl < list.size(); ++sl) {
    const Json& v = list[sl];
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() >= s.ib.data_vls) {
      throw InputError(path + "[" + std::to_string(sl) + "]", message_text(v),
                       "a VL below data_vls (" + std::to_string(s.ib.data_vls) + ")");
    }
    vls.push_back(static_cast<uint8_t>(v.get<int64_t>()));
  }
  return vls;
}

bool has_sl_to_vl_overrides(const Scenario& s) {
  for (const SwitchOverride& o : s.overrides) {
    if (!o.sl_to_vl.empty()) return true;
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
    if (o.sl_to_vl.empty() || (o.node >= 0 && o.node != node)) continue;
    const std::vector<uint8_t>& list = o.sl_to_vl;
    for (size_t port = 0; port < ports; ++port) {
      if (o.port >= 0 && static_cast<size_t>(o.port) != port) continue;
      for (size_t sl = 0; sl < kSls; ++sl) {
        table[port * kSls + sl] = sl < list.size() ? list[sl] : 0;
      }
    }
  }
  return table;
}

}  // namespace scen
