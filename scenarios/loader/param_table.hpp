// Parameters as data: each model parameter struct is described once by a table of fields
// (key, unit, default, meaning). The same table reads the scenario, echoes the effective
// configuration into summary.json, and prints `rdmasim run --list-params`.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "scenarios/loader/json_reader.hpp"
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
};

template <typename S>
using FieldTable = std::vector<Field<S>>;

template <typename S>
Field<S> time_field(std::string key, sim::Time S::*m, std::string meaning,
                    sim::Time min = sim::Time(0)) {
  return {key, "time", std::move(meaning),
          [key, m, min](JsonReader& r, S& s) { s.*m = r.time(key, s.*m, min); },
          [m](const S& s) { return Json(sim::format_time(s.*m)); }};
}

template <typename S>
Field<S> bytes_field(std::string key, int64_t S::*m, std::string meaning, int64_t min = 0) {
  return {key, "bytes", std::move(meaning),
          [key, m, min](JsonReader& r, S& s) { s.*m = r.bytes(key, s.*m, min); },
          [m](const S& s) { return Json(sim::format_bytes(s.*m)); }};
}

template <typename S>
Field<S> int_field(std::string key, int64_t S::*m, std::string meaning, int64_t min, int64_t max) {
  return {key, "integer", std::move(meaning),
          [key, m, min, max](JsonReader& r, S& s) { s.*m = r.integer(key, s.*m, min, max); },
          [m](const S& s) { return Json(s.*m); }};
}

template <typename S>
Field<S> int_field(std::string key, int S::*m, std::string meaning, int min, int max) {
  return {key, "integer", std::move(meaning),
          [key, m, min, max](JsonReader& r, S& s) {
            s.*m = static_cast<int>(r.integer(key, s.*m, min, max));
          },
          [m](const S& s) { return Json(s.*m); }};
}

template <typename S>
Field<S> rate_field(std::string key, int64_t S::*m, std::string meaning) {
  return {key, "rate", std::move(meaning),
          [key, m](JsonReader& r, S& s) { s.*m = r.rate_bps(key, s.*m); },
          [m](const S& s) { return Json(sim::format_rate(s.*m)); }};
}

template <typename S>
Field<S> bool_field(std::string key, bool S::*m, std::string meaning) {
  return {key, "boolean", std::move(meaning),
          [key, m](JsonReader& r, S& s) { s.*m = r.boolean(key, s.*m); },
          [m](const S& s) { return Json(s.*m); }};
}

template <typename S>
Field<S> number_field(std::string key, double S::*m, std::string meaning, double min, double max) {
  return {key, "number", std::move(meaning),
          [key, m, min, max](JsonReader& r, S& s) { s.*m = r.number(key, s.*m, min, max); },
          [m](const S& s) { return Json(s.*m); }};
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

// A rate where 0 (the number or "0") means "off / unlimited".
template <typename S>
Field<S> rate_or_zero_field(std::string key, int64_t S::*m, std::string meaning) {
  return {key, "rate", std::move(meaning),
          [key, m](JsonReader& r, S& s) { read_rate_or_zero(r, key, s.*m); },
          [m](const S& s) { return s.*m == 0 ? Json(0) : Json(sim::format_rate(s.*m)); }};
}

// A rate that may also be "auto" (-1: the model decides) or 0 (off).
template <typename S>
Field<S> rate_auto_or_zero_field(std::string key, int64_t S::*m, std::string meaning) {
  return {key, "rate", std::move(meaning),
          [key, m](JsonReader& r, S& s) {
            if (r.has(key) && r.json()[key].is_string() && r.json()[key] == "auto") {
              (void)r.at(key);  // mark as read
              s.*m = -1;
              return;
            }
            read_rate_or_zero(r, key, s.*m);
          },
          [m](const S& s) {
            return s.*m < 0 ? Json("auto") : s.*m == 0 ? Json(0) : Json(sim::format_rate(s.*m));
          }};
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

// The traffic classes (802.1p priorities 0..7) a mechanism acts on: a list such as [1, 3], or
// "all" (every bit of the mask set, the default).
template <typename S>
Field<S> classes_field(std::string key, uint8_t S::*m, std::string meaning) {
  Field<S> f{key, "classes", std::move(meaning),
             [key, m](JsonReader& r, S& s) {
               if (!r.has(key)) return;
               const Json& v = r.json()[key];
               const std::string expected =
                   "\"all\" or a non-empty list of distinct priorities 0..7";
               if (v.is_string() && v == "all") {
                 (void)r.at(key);
                 s.*m = 0xff;
                 return;
               }
               if (!v.is_array() || v.empty())
                 throw InputError(r.child_path(key), v.dump(), expected);
               uint8_t mask = 0;
               for (const Json& e : v) {
                 if (!e.is_number_integer() || e.get<int64_t>() < 0 || e.get<int64_t>() > 7 ||
                     ((mask >> e.get<int>()) & 1u) != 0) {
                   throw InputError(r.child_path(key), v.dump(), expected);
                 }
                 mask = static_cast<uint8_t>(mask | (1u << e.get<int>()));
               }
               (void)r.at(key);
               s.*m = mask;
             },
             [m](const S& s) {
               if (s.*m == 0xff) return Json("all");
               Json list = Json::array();
               for (int c = 0; c < 8; ++c) {
                 if (((s.*m >> c) & 1u) != 0) list.push_back(c);
               }
               return list;
             }};
  f.echo_default = false;
  return f;
}

// One line per parameter for --list-params: "<prefix>.<key>  <unit>  default <v>  <meaning>".
template <typename S>
void list_fields(std::string& out, const std::string& prefix, const FieldTable<S>& table,
                 const S& defaults) {
  for (const auto& f : table) {
    const Json v = f.write(defaults);
    std::string key = prefix + "." + f.key;
    key.resize(std::max<size_t>(key.size(), 34), ' ');
    std::string unit = f.unit;
    unit.resize(std::max<size_t>(unit.size(), 9), ' ');
    std::string def = v.is_string() ? v.get<std::string>() : v.dump();
    def.resize(std::max<size_t>(def.size(), 12), ' ');
    out += key + " " + unit + " " + def + " " + f.meaning + "\n";
  }
}

}  // namespace scen
