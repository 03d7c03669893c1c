// Parameters as data: each parameter struct is described once, beside it, by a table of
// parameter descriptions (sim/param_spec.hpp); `fields_from` makes the loader's fields of it.
// The same fields read the scenario (JSON paths, units, bounds), echo the effective
// configuration into summary.json, list `rdmasim run --list-params`, type `rdmasim schema` and
// write docs/parameters.md (param_registry.hpp).
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "scenarios/loader/json_reader.hpp"
#include "sim/param_spec.hpp"
#include "sim/units.hpp"

namespace scen {

template <typename S>
struct Field {
  std::string key;
  std::string unit;     // "time", "rate", "bytes", "integer", "number", "choice: a|b"
  std::string meaning;  // one line, with the source of the default where it has one
  std::function<void(JsonReader&, S&)> read;  // reads the key if present, else keeps value
  std::function<Json(const S&)> write;
  // false: left out of the effective configuration while at its default (a key added after
  // the summaries of shipped scenarios were pinned; --list-params still lists it).
  bool echo_default = true;
  // The value's JSON Schema beyond what its unit says (bounds); null: the unit's
  // (param_registry.hpp, unit_schema).
  Json schema = nullptr;
  // Copies this parameter's value from one struct to another: an override that sets the key
  // applies it (ParamPatch). Every field an override may set has one (tests/schema_test.cpp).
  std::function<void(const S& from, S& to)> copy = {};
};

template <typename S>
using FieldTable = std::vector<Field<S>>;

// The JSON Schema of a value written in `unit` ("time", "rate", "bytes", ...): what the loader's
// readers accept (JsonReader: times and rates are strings with a unit; sizes may be plain
// integers), before any bounds of the field's own (param_registry.cpp).
Json unit_schema(const std::string& unit);

// A rate's schema that also admits 0 / "0" (off) and, with `with_auto`, "auto".
inline Json rate_or_zero_schema(bool with_auto) {
  Json values = Json::array({0, "0"});
  if (with_auto) values.push_back("auto");
  return Json{{"anyOf", Json::array({unit_schema("rate"), Json{{"enum", values}}})}};
}

// {"type": "integer" or "number", "minimum", "maximum"}: a bounded value's schema.
inline Json bounded_schema(const char* type, Json min, Json max) {
  return Json{{"type", type}, {"minimum", std::move(min)}, {"maximum", std::move(max)}};
}

// Reads `key`, if present, as a rate where 0 (the number or "0") means "off / unlimited".
inline void read_rate_or_zero(JsonReader& r, const std::string& key, int64_t& out) {
  if (!r.has(key)) return;
  const Json& v = r.json()[key];
  if ((v.is_number_integer() && v.get<int64_t>() == 0) || (v.is_string() && v == "0")) {
    (void)r.at(key);  // mark as read
    out = 0;
    return;
  }
  out = r.rate_bps(key);
}

// The parameters an override sets, typed: their values (in a copy of the struct) and which
// fields they are, in table order. Applied on top of resolved parameters, it changes only those.
template <typename S>
struct ParamPatch {
  S values{};
  std::vector<const Field<S>*> fields;

  bool empty() const { return fields.empty(); }
  bool sets(std::string_view key) const {
    for (const Field<S>* f : fields) {
      if (f->key == key) return true;
    }
    return false;
  }
  void apply(S& target) const {
    for (const Field<S>* f : fields) f->copy(values, target);
  }
};

// Reads the fields of `table` present in `r` (a static table: the patch keeps pointers to it).
template <typename S>
ParamPatch<S> read_patch(JsonReader& r, const FieldTable<S>& table) {
  ParamPatch<S> p;
  for (const auto& f : table) {
    if (!r.has(f.key)) continue;
    if (!f.copy) throw std::logic_error("parameter " + f.key + " cannot be overridden: no copy");
    f.read(r, p.values);
    p.fields.push_back(&f);
  }
  return p;
}

// Reads every field of `table` present in `r` into `s` (absent ones keep their value).
template <typename S>
void read_fields(JsonReader& r, const FieldTable<S>& table, S& s) {
  for (const auto& f : table) f.read(r, s);
}

template <typename S>
Json write_fields(const FieldTable<S>& table, const S& s) {
  Json j = Json::object();
  for (const auto& f : table) {
    Json v = f.write(s);
    if (!f.echo_default && v == f.write(S{})) continue;
    j[f.key] = std::move(v);
  }
  return j;
}

// The traffic classes (802.1p priorities 0..7) a mechanism acts on, as a bit mask: a list such
// as [1, 3], or "all" (every bit of the mask set, the default).
inline uint8_t read_classes(JsonReader& r, const std::string& key) {
  const Json& v = r.json()[key];
  const std::string expected = "\"all\" or a non-empty list of distinct priorities 0..7";
  if (v.is_string() && v == "all") {
    (void)r.at(key);
    return 0xff;
  }
  if (!v.is_array() || v.empty()) throw InputError(r.child_path(key), message_text(v), expected);
  uint8_t mask = 0;
  for (const Json& e : v) {
    if (!e.is_number_integer() || e.get<int64_t>() < 0 || e.get<int64_t>() > 7 ||
        ((mask >> e.get<int>()) & 1u) != 0) {
      throw InputError(r.child_path(key), message_text(v), expected);
    }
    mask = static_cast<uint8_t>(mask | (1u << e.get<int>()));
  }
  (void)r.at(key);
  return mask;
}

inline Json write_classes(uint8_t mask) {
  if (mask == 0xff) return Json("all");
  Json list = Json::array();
  for (int c = 0; c < 8; ++c) {
    if (((mask >> c) & 1u) != 0) list.push_back(c);
  }
  return list;
}

// The field that reads, writes, checks and copies the parameter `p` describes (declared next to
// its struct, sim/param_spec.hpp). A Custom parameter takes its reader and writer from
// `custom` (the field of the same key there) and its meaning and unit from `p`.
template <typename S>
Field<S> field_from(const sim::ParamSpec<S>& p, const FieldTable<S>& custom = {}) {
  using sim::ParamUnit;
  const std::string key = p.key;
  const auto get = p.get;
  const auto set = p.set;
  Field<S> f;
  f.key = key;
  f.meaning = p.meaning;
  f.echo_default = p.echo_default;
  if (get && set) f.copy = [get, set](const S& from, S& to) { set(to, get(from)); };
  switch (p.unit) {
    case ParamUnit::Time: {
      const sim::Time min(p.min);
      f.unit = "time";
      f.read = [key, get, set, min](JsonReader& r, S& s) {
        set(s, r.time(key, sim::Time(get(s)), min).ps);
      };
      f.write = [get](const S& s) { return Json(sim::format_time(sim::Time(get(s)))); };
      break;
    }
    case ParamUnit::Bytes: {
      const int64_t min = p.min;
      f.unit = "bytes";
      f.read = [key, get, set, min](JsonReader& r, S& s) { set(s, r.bytes(key, get(s), min)); };
      f.write = [get](const S& s) { return Json(sim::format_bytes(get(s))); };
      break;
    }
    case ParamUnit::Rate:
      f.unit = "rate";
      f.read = [key, get, set](JsonReader& r, S& s) { set(s, r.rate_bps(key, get(s))); };
      f.write = [get](const S& s) { return Json(sim::format_rate(get(s))); };
      break;
    case ParamUnit::RateOrZero:
      f.unit = "rate";
      f.read = [key, get, set](JsonReader& r, S& s) {
        int64_t v = get(s);
        read_rate_or_zero(r, key, v);
        set(s, v);
      };
      f.write = [get](const S& s) {
        return get(s) == 0 ? Json(0) : Json(sim::format_rate(get(s)));
      };
      f.schema = rate_or_zero_schema(false);
      break;
    case ParamUnit::RateAutoOrZero:
      f.unit = "rate";
      f.read = [key, get, set](JsonReader& r, S& s) {
        if (r.has(key) && r.json()[key].is_string() && r.json()[key] == "auto") {
          (void)r.at(key);  // mark as read
          set(s, -1);
          return;
        }
        int64_t v = get(s);
        read_rate_or_zero(r, key, v);
        set(s, v);
      };
      f.write = [get](const S& s) {
        const int64_t v = get(s);
        return v < 0 ? Json("auto") : v == 0 ? Json(0) : Json(sim::format_rate(v));
      };
      f.schema = rate_or_zero_schema(true);
      break;
    case ParamUnit::Integer: {
      const int64_t min = p.min, max = p.max;
      f.unit = "integer";
      f.read = [key, get, set, min, max](JsonReader& r, S& s) {
        set(s, r.integer(key, get(s), min, max));
      };
      f.write = [get](const S& s) { return Json(get(s)); };
      f.schema = bounded_schema("integer", min, max);
      break;
    }
    case ParamUnit::Number: {
      const auto getn = p.get_number;
      const auto setn = p.set_number;
      const double min = p.min_number, max = p.max_number;
      f.unit = "number";
      f.read = [key, getn, setn, min, max](JsonReader& r, S& s) {
        setn(s, r.number(key, getn(s), min, max));
      };
      f.write = [getn](const S& s) { return Json(getn(s)); };
      f.schema = bounded_schema("number", min, max);
      f.copy = [getn, setn](const S& from, S& to) { setn(to, getn(from)); };
      break;
    }
    case ParamUnit::Boolean:
      f.unit = "boolean";
      f.read = [key, get, set](JsonReader& r, S& s) {
        set(s, r.boolean(key, get(s) != 0) ? 1 : 0);
      };
      f.write = [get](const S& s) { return Json(get(s) != 0); };
      break;
    case ParamUnit::Choice: {
      const auto choices = p.choices;
      std::vector<std::string> names;
      Json names_json = Json::array();
      for (const auto& c : choices) {
        names.push_back(c.first);
        names_json.push_back(c.first);
      }
      auto name_of = [choices](int64_t v) {
        for (const auto& c : choices) {
          if (c.second == v) return c.first;
        }
        throw std::logic_error("a parameter holds a value none of its choices names");
      };
      f.unit = "choice";
      f.read = [key, get, set, choices, names, name_of](JsonReader& r, S& s) {
        const std::string v = r.choice(key, names, name_of(get(s)));
        for (const auto& c : choices) {
          if (c.first == v) set(s, c.second);
        }
      };
      f.write = [get, name_of](const S& s) { return Json(name_of(get(s))); };
      f.schema = Json{{"enum", names_json}};
      break;
    }
    case ParamUnit::Classes: {
      f.unit = "classes";
      f.read = [key, get, set](JsonReader& r, S& s) {
        if (!r.has(key)) return;
        set(s, read_classes(r, key));
      };
      f.write = [get](const S& s) { return write_classes(static_cast<uint8_t>(get(s))); };
      break;
    }
    case ParamUnit::Custom: {
      const Field<S>* c = nullptr;
      for (const auto& g : custom) {
        if (g.key == key) c = &g;
      }
      if (c == nullptr) throw std::logic_error("parameter " + key + " has no reader");
      f.unit = p.custom_unit;
      f.read = c->read;
      f.write = c->write;
      f.schema = c->schema;
      f.copy = p.custom_copy;
      break;
    }
  }
  return f;
}

// The fields of every parameter of `t`, in its order (`custom`: readers of its Custom ones).
template <typename S>
FieldTable<S> fields_from(const sim::ParamTable<S>& t, const FieldTable<S>& custom = {}) {
  FieldTable<S> out;
  out.reserve(t.size());
  for (const auto& p : t) out.push_back(field_from(p, custom));
  return out;
}

}  // namespace scen
