#include "scenarios/loader/qos_section.hpp"

#include <string>

namespace scen {
namespace {

using models::QosParams;

constexpr int64_t kMaxWeight = 1000;
constexpr int64_t kMinQuantum = 64;  // the minimum Ethernet frame

// "0".."7" (or "0".."63" for DSCPs): digits only, no sign, no leading zeros.
int parse_index(const std::string& key, int max) {
  if (key.empty() || key.size() > 2 || (key.size() > 1 && key[0] == '0')) return -1;
  int v = 0;
  for (char ch : key) {
    if (ch < '0' || ch > '9') return -1;
    v = v * 10 + (ch - '0');
  }
  return v <= max ? v : -1;
}

uint32_t read_weight(const Json& v, const std::string& path) {
  const std::string expected =
      "\"strict\" or a DWRR weight, an integer in [1, " + std::to_string(kMaxWeight) + "]";
  if (v.is_string() && v.get<std::string>() == "strict") return 0;
  if (!v.is_number_integer()) throw InputError(path, message_text(v), expected);
  const int64_t w =
      v.is_number_unsigned() && v.get<uint64_t>() > INT64_MAX ? INT64_MAX : v.get<int64_t>();
  if (w < 1 || w > kMaxWeight) throw InputError(path, message_text(v), expected);
  return static_cast<uint32_t>(w);
}

void read_schedule_object(const Json& v, const std::string& path, models::ClassSchedule& s) {
  if (!v.is_object()) {
    throw InputError(path, message_text(v),
                     "an object of priority: \"strict\" | weight, e.g. {\"3\": 1}");
  }
  for (auto it = v.begin(); it != v.end(); ++it) {
    const std::string where = path + "." + it.key();
    const int prio = parse_index(it.key(), 7);
    if (prio < 0)
      throw InputError(where, "\"" + it.key() + "\"", "a priority \"0\" .. \"7\" as the key");
    s.weight[prio] = read_weight(it.value(), where);
  }
}

}  // namespace

const FieldTable<QosParams>& qos_fields() {
  static const FieldTable<QosParams> t = fields_from(
      models::qos_param_table(),
      {Field<QosParams>{"dscp_to_priority", "map", "",
                        [](JsonReader& r, QosParams& q) {
                          if (!r.has("dscp_to_priority")) return;
                          JsonReader m = r.at("dscp_to_priority");
                          m.expect_object();
                          for (auto it = m.json().begin(); it != m.json().end(); ++it) {
                            const int dscp = parse_index(it.key(), models::kDscpValues - 1);
                            if (dscp < 0) {
                              throw InputError(m.child_path(it.key()), "\"" + it.key() + "\"",
                                               "a DSCP \"0\" .. \"63\" as the key");
                            }
                            q.dscp_to_priority.priority[dscp] =
                                static_cast<uint8_t>(m.integer(it.key(), 0, 7));
                          }
                        },
                        [](const QosParams& q) {
                          Json j = Json::object();
                          const models::DscpMap class_selector;
                          for (int d = 0; d < models::kDscpValues; ++d) {
                            if (q.dscp_to_priority[d] != class_selector[d]) {
                              j[std::to_string(d)] = q.dscp_to_priority[d];
                            }
                          }
                          return j;
                        }},
       Field<QosParams>{"scheduler", "map", "",
                        [](JsonReader& r, QosParams& q) {
                          if (!r.has("scheduler")) return;
                          const JsonReader s = r.at("scheduler");
                          read_schedule_object(s.json(), s.path(), q.scheduler);
                        },
                        [](const QosParams& q) {
                          Json j = Json::object();
                          for (int c = 0; c < models::kPriorities; ++c) {
                            j[std::to_string(c)] = q.scheduler.weight[c] == 0
                                                       ? Json("strict")
                                                       : Json(q.scheduler.weight[c]);
                          }
                          return j;
                        }}});
  return t;
}

void check_qos(const QosParams& q, const models::NicParams& nic) {
  if (q.scheduler.quantum_bytes != 0 && q.scheduler.quantum_bytes < kMinQuantum) {
    throw InputError("fabric.qos.quantum", sim::format_bytes(q.scheduler.quantum_bytes),
                     "0 (one maximum frame) or at least 64B");
  }
  if (q.trust != models::Trust::Dscp) return;
  struct Pair {
    const char* name;
    int priority, dscp;
  };
  for (const Pair& p :
       {Pair{"data", nic.data_priority, nic.data_dscp}, Pair{"ack", nic.ack_priority, nic.ack_dscp},
        Pair{"cnp", nic.cnp_priority, nic.cnp_dscp}}) {
    const int mapped = q.dscp_to_priority[p.dscp];
    if (mapped != p.priority) {
      throw InputError(std::string("fabric.nic.") + p.name + "_dscp", std::to_string(p.dscp),
                       std::string("a DSCP that fabric.qos.dscp_to_priority maps to fabric.nic.") +
                           p.name + "_priority (" + std::to_string(p.priority) +
                           ") when switches trust DSCP; it maps to " + std::to_string(mapped));
    }
  }
}

int64_t effective_quantum(const QosParams& q, const models::NicParams& nic) {
  return q.scheduler.quantum_bytes > 0 ? q.scheduler.quantum_bytes
                                       : nic.mtu + nic.header_bytes + nic.framing_bytes;
}

SchedulerSetting read_scheduler_setting(const Json& v, const std::string& path, int priority) {
  SchedulerSetting out{};
  if (priority >= 0) {
    out[priority] = read_weight(v, path);
    return out;
  }
  // The object form, read as fabric.qos.scheduler is: onto a schedule whose weights are all
  // marked unset, so only the priorities it names come out set.
  constexpr uint32_t kUnset = UINT32_MAX;
  models::ClassSchedule named;
  named.weight.fill(kUnset);
  read_schedule_object(v, path, named);
  for (int p = 0; p < models::kPriorities; ++p) {
    if (named.weight[p] != kUnset) out[p] = named.weight[p];
  }
  return out;
}

TrafficClass read_traffic_class(JsonReader& r, const TrafficClass& def, const QosParams& q,
                                const models::NicParams& nic) {
  const bool has_dscp = r.has("dscp"), has_priority = r.has("priority");
  if (!has_dscp && !has_priority) return def;
  TrafficClass c;
  if (has_dscp) {
    c.dscp = static_cast<int>(r.integer("dscp", 0, models::kDscpValues - 1));
    c.priority = q.dscp_to_priority[c.dscp];
    if (has_priority && r.integer("priority", 0, q.highest_priority) != c.priority) {
      throw InputError(r.child_path("priority"), r.value_text("priority"),
                       "priority " + std::to_string(c.priority) +
                           ", where fabric.qos.dscp_to_priority puts DSCP " +
                           std::to_string(c.dscp) + " (or give only one of the two)");
    }
    return c;
  }
  c.priority = static_cast<int>(r.integer("priority", 0, q.highest_priority));
  if (c.priority >= models::kPriorities) {  // an InfiniBand SL above 7: no Ethernet class
    c.dscp = 0;
    return c;
  }
  if (nic.data_dscp >= 0 && nic.data_dscp < models::kDscpValues &&
      q.dscp_to_priority[nic.data_dscp] == c.priority) {
    c.dscp = nic.data_dscp;
    return c;
  }
  c.dscp = q.dscp_to_priority.lowest_dscp_for(c.priority);
  if (c.dscp < 0) {
    if (q.trust == models::Trust::Dscp) {
      throw InputError(r.child_path("priority"), r.value_text("priority"),
                       "a priority that fabric.qos.dscp_to_priority maps some DSCP to (switches "
                       "trust DSCP), or a \"dscp\"");
    }
    c.dscp = c.priority << 3;  // the class-selector codepoint; switches trust the tag
  }
  return c;
}

}  // namespace scen
