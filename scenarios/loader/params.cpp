#include "scenarios/loader/params.hpp"

#include <numeric>

#include "scenarios/loader/collective_section.hpp"
#include "scenarios/loader/exact_decimal.hpp"
#include "scenarios/loader/fabric_section.hpp"
#include "scenarios/loader/gpu_nodes_section.hpp"
#include "scenarios/loader/host_path_section.hpp"
#include "scenarios/loader/qos_section.hpp"
#include "scenarios/loader/scenario.hpp"
#include "scenarios/loader/sharp_section.hpp"
#include "scenarios/loader/watchdog_section.hpp"

namespace scen {
namespace {

constexpr const char* kAlphaExpected =
    "a factor in [1/1024, 64]: a number such as 0.125 (up to 6 decimals) or a fraction such as "
    "\"1/8\"";

// α as written: a JSON number, or a string "0.125" or "1/8"; kept as an exact fraction.
models::Alpha read_alpha(const Json& v, const std::string& path) {
  const std::string shown = message_text(v);
  if (!v.is_number() && !v.is_string()) throw InputError(path, shown, kAlphaExpected);
  const std::string text = v.is_string() ? v.get<std::string>() : v.dump();
  int64_t num = 0, den = 1;
  const auto slash = text.find('/');
  auto whole = [&](const std::string& t, int64_t& out) {
    return !t.empty() && t.size() <= 9 && t.find_first_not_of("0123456789") == std::string::npos &&
           (out = std::stoll(t), true);
  };
  if (slash != std::string::npos) {
    if (!whole(text.substr(0, slash), num) || !whole(text.substr(slash + 1), den) || den == 0) {
      throw InputError(path, shown, kAlphaExpected);
    }
  } else {
    if (peer::scale_decimal(text, 1, 6, num) != peer::Exactness::ok) {
      throw InputError(path, shown, kAlphaExpected);
    }
    den = 1'000'000;
  }
  if (num <= 0 || num * 1024 < den || num > 64 * den) throw InputError(path, shown, kAlphaExpected);
  const int64_t g = std::gcd(num, den);
  return {static_cast<int32_t>(num / g), static_cast<int32_t>(den / g)};
}

Json write_alpha(models::Alpha a) {
  return Json(a.den == 1 ? std::to_string(a.num)
                         : std::to_string(a.num) + "/" + std::to_string(a.den));
}

}  // namespace

using models::NicParams;
using models::SwitchParams;

const FieldTable<SwitchParams>& switch_fields() {
  static const FieldTable<SwitchParams> t = fields_from(models::switch_param_table());
  return t;
}

const FieldTable<SwitchParams>& port_fields() {
  static const FieldTable<SwitchParams> t = fields_from(
      models::port_param_table(),
      {Field<SwitchParams>{"alpha", "fraction", "",
                           [](JsonReader& r, SwitchParams& s) {
                             if (!r.has("alpha")) return;
                             const JsonReader v = r.at("alpha");
                             s.buffer.alpha = read_alpha(v.json(), v.path());
                           },
                           [](const SwitchParams& s) { return write_alpha(s.buffer.alpha); }}});
  return t;
}

const FieldTable<NicParams>& nic_fields() {
  static const FieldTable<NicParams> t = fields_from(models::nic_param_table());
  return t;
}

const FieldTable<models::PfcParams>& pfc_fields() {
  using models::PfcParams;
  static const FieldTable<PfcParams> t = fields_from(
      models::pfc_param_table(),
      {Field<PfcParams>{
          "priorities", "list", "",
          [](JsonReader& r, PfcParams& s) {
            if (!r.has("priorities")) return;
            JsonReader list = r.at("priorities");
            list.expect_array();
            s.lossless_priorities = 0;
            for (size_t i = 0; i < list.size(); ++i) {
              const Json& v = list.json()[i];
              if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > 7) {
                throw InputError(list.index_path(i), message_text(v), "a priority in [0, 7]");
              }
              s.lossless_priorities |= static_cast<uint8_t>(1u << v.get<int>());
            }
          },
          [](const PfcParams& s) {
            Json a = Json::array();
            for (int p = 0; p < 8; ++p) {
              if ((s.lossless_priorities >> p) & 1u) a.push_back(p);
            }
            return a;
          }}});
  return t;
}

const FieldTable<models::EcnParams>& ecn_port_fields() {
  static const FieldTable<models::EcnParams> t = fields_from(models::ecn_port_param_table());
  return t;
}

const FieldTable<models::EcnParams>& ecn_fields() {
  static const FieldTable<models::EcnParams> t = fields_from(models::ecn_param_table());
  return t;
}

const FieldTable<LinkDefaults>& link_fields() {
  static const FieldTable<LinkDefaults> t =
      fields_from(sim::ParamTable<LinkDefaults>{sim::number_param<LinkDefaults>(
          "loss_rate", &LinkDefaults::loss_rate,
          "probability a packet is lost on a link, per direction (links may set their own)", 0.0,
          0.999999)});
  return t;
}

}  // namespace scen
