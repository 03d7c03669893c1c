// A model parameter described once, next to the struct that holds it: its key in a scenario,
// how its value is written (the unit), what it means (with the source of its default), its
// bounds and where it lives in the struct. The scenario loader reads, checks, echoes, lists
// and documents every parameter from these descriptions (scenarios/loader/param_table.hpp);
// the models that declare them know nothing of JSON.
//
//   ParamTable<NicParams> t;
//   t.push_back(bytes_param<NicParams>("mtu", &NicParams::mtu, "payload bytes per packet", 64));
//   t.push_back(bytes_param<SwitchParams>("buffer", [](auto& s) -> auto& { return s.buffer.bytes;
//   },
//                                         "packet memory of the switch", 1));
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "sim/param_spec_fwd.hpp"
#include "sim/time.hpp"

namespace sim {

enum class ParamUnit : uint8_t {
  Time,            // "2us"; held in ps
  Bytes,           // 4096 or "4KiB"
  Rate,            // "100Gbps"; held in bit/s
  RateOrZero,      // a rate, or 0 / "0": off (held as 0)
  RateAutoOrZero,  // a rate, 0 (off) or "auto" (held as -1: the model decides)
  Integer,         // bounded by [min, max]
  Number,          // a real bounded by [min_number, max_number]
  Boolean,
  Choice,   // one name of `choices`; held as the name's value (an enum's)
  Classes,  // "all" or a list of distinct priorities 0..7; held as a bit mask
  Custom,   // written in its own form (`custom_unit`: "list", "map", "fraction", ...); the
            // loader has a reader for it by key
};

template <typename S>
struct ParamSpec {
  std::string key;
  ParamUnit unit = ParamUnit::Integer;
  std::string meaning;  // one line, with the source of the default where it has one
  // The value as held: an integer (Time in ps, Bytes, Rate in bit/s, Integer, Boolean as 0/1,
  // Choice as its value, Classes as a mask) or, for Number, a real.
  std::function<int64_t(const S&)> get;
  std::function<void(S&, int64_t)> set;
  std::function<double(const S&)> get_number;
  std::function<void(S&, double)> set_number;
  int64_t min = 0;  // Integer; the least Time (ps) or Bytes
  int64_t max = 0;  // Integer
  double min_number = 0, max_number = 0;
  std::vector<std::pair<std::string, int64_t>> choices;  // Choice: name and held value
  std::string custom_unit;                               // Custom
  // Copies the value of a Custom parameter (the others copy through get/set).
  std::function<void(const S& from, S& to)> custom_copy;
  // false: left out of the echo of the effective configuration while at its default.
  bool echo_default = true;
};

namespace param_detail {

// The member `ref` names in `s`: a data member pointer, or a callable (s) -> member& for a
// member of a nested struct (a generic lambda, so that it serves const and non-const `s`).
template <typename S, typename Ref>
decltype(auto) member(S& s, const Ref& ref) {
  if constexpr (std::is_member_object_pointer_v<Ref>) {
    return (s.*ref);
  } else {
    return ref(s);
  }
}

template <typename S, typename Ref>
ParamSpec<S> integral(std::string key, ParamUnit unit, Ref ref, std::string meaning) {
  ParamSpec<S> p;
  p.key = std::move(key);
  p.unit = unit;
  p.meaning = std::move(meaning);
  p.get = [ref](const S& s) -> int64_t {
    const auto& m = member(s, ref);
    using M = std::remove_cvref_t<decltype(m)>;
    if constexpr (std::is_same_v<M, Time>) {
      return m.ps;
    } else {
      return static_cast<int64_t>(m);
    }
  };
  p.set = [ref](S& s, int64_t v) {
    auto& m = member(s, ref);
    using M = std::remove_cvref_t<decltype(m)>;
    if constexpr (std::is_same_v<M, Time>) {
      m = Time(v);
    } else {
      m = static_cast<M>(v);
    }
  };
  return p;
}

}  // namespace param_detail

template <typename S, typename Ref>
ParamSpec<S> time_param(std::string key, Ref ref, std::string meaning, Time min = Time(0)) {
  auto p = param_detail::integral<S>(std::move(key), ParamUnit::Time, ref, std::move(meaning));
  p.min = min.ps;
  return p;
}

template <typename S, typename Ref>
ParamSpec<S> bytes_param(std::string key, Ref ref, std::string meaning, int64_t min = 0) {
  auto p = param_detail::integral<S>(std::move(key), ParamUnit::Bytes, ref, std::move(meaning));
  p.min = min;
  return p;
}

template <typename S, typename Ref>
ParamSpec<S> int_param(std::string key, Ref ref, std::string meaning, int64_t min, int64_t max) {
  auto p = param_detail::integral<S>(std::move(key), ParamUnit::Integer, ref, std::move(meaning));
  p.min = min;
  p.max = max;
  return p;
}

template <typename S, typename Ref>
ParamSpec<S> rate_param(std::string key, Ref ref, std::string meaning) {
  return param_detail::integral<S>(std::move(key), ParamUnit::Rate, ref, std::move(meaning));
}

// A rate where 0 (the number or "0") means "off / unlimited".
template <typename S, typename Ref>
ParamSpec<S> rate_or_zero_param(std::string key, Ref ref, std::string meaning) {
  return param_detail::integral<S>(std::move(key), ParamUnit::RateOrZero, ref, std::move(meaning));
}

// A rate that may also be "auto" (held as -1: the model decides) or 0 (off).
template <typename S, typename Ref>
ParamSpec<S> rate_auto_or_zero_param(std::string key, Ref ref, std::string meaning) {
  return param_detail::integral<S>(std::move(key), ParamUnit::RateAutoOrZero, ref,
                                   std::move(meaning));
}

template <typename S, typename Ref>
ParamSpec<S> bool_param(std::string key, Ref ref, std::string meaning) {
  return param_detail::integral<S>(std::move(key), ParamUnit::Boolean, ref, std::move(meaning));
}

// One of `choices` (name, the member's value for it: an enum's or a bool's).
template <typename S, typename Ref>
ParamSpec<S> choice_param(std::string key, Ref ref, std::string meaning,
                          std::vector<std::pair<std::string, int64_t>> choices) {
  auto p = param_detail::integral<S>(std::move(key), ParamUnit::Choice, ref, std::move(meaning));
  p.choices = std::move(choices);
  return p;
}

// The traffic classes (802.1p priorities 0..7) a mechanism acts on, as a bit mask: a list such
// as [1, 3], or "all" (every bit set, the default; left out of the echo while so).
template <typename S, typename Ref>
ParamSpec<S> classes_param(std::string key, Ref ref, std::string meaning) {
  auto p = param_detail::integral<S>(std::move(key), ParamUnit::Classes, ref, std::move(meaning));
  p.echo_default = false;
  return p;
}

template <typename S, typename Ref>
ParamSpec<S> number_param(std::string key, Ref ref, std::string meaning, double min, double max) {
  ParamSpec<S> p;
  p.key = std::move(key);
  p.unit = ParamUnit::Number;
  p.meaning = std::move(meaning);
  p.get_number = [ref](const S& s) { return static_cast<double>(param_detail::member(s, ref)); };
  p.set_number = [ref](S& s, double v) { param_detail::member(s, ref) = v; };
  p.min_number = min;
  p.max_number = max;
  return p;
}

// A parameter written in a form of its own (`unit`: "list", "map", "fraction", ...), held in
// `ref`; the loader reads and writes it by key (scenarios/loader/custom_params.cpp).
template <typename S, typename Ref>
ParamSpec<S> custom_param(std::string key, std::string unit, Ref ref, std::string meaning) {
  ParamSpec<S> p;
  p.key = std::move(key);
  p.unit = ParamUnit::Custom;
  p.custom_unit = std::move(unit);
  p.meaning = std::move(meaning);
  p.custom_copy = [ref](const S& from, S& to) {
    param_detail::member(to, ref) = param_detail::member(from, ref);
  };
  return p;
}

// The parameters of `inner` (a struct S holds as a member), as parameters of S.
template <typename S, typename Inner, typename Ref>
void append_nested(ParamTable<S>& out, const ParamTable<Inner>& inner, Ref ref) {
  for (const ParamSpec<Inner>& q : inner) {
    ParamSpec<S> p;
    p.key = q.key;
    p.unit = q.unit;
    p.meaning = q.meaning;
    if (q.get) p.get = [g = q.get, ref](const S& s) { return g(param_detail::member(s, ref)); };
    if (q.set) p.set = [f = q.set, ref](S& s, int64_t v) { f(param_detail::member(s, ref), v); };
    if (q.get_number) {
      p.get_number = [g = q.get_number, ref](const S& s) {
        return g(param_detail::member(s, ref));
      };
    }
    if (q.set_number) {
      p.set_number = [f = q.set_number, ref](S& s, double v) {
        f(param_detail::member(s, ref), v);
      };
    }
    if (q.custom_copy) {
      p.custom_copy = [c = q.custom_copy, ref](const S& from, S& to) {
        c(param_detail::member(from, ref), param_detail::member(to, ref));
      };
    }
    p.min = q.min;
    p.max = q.max;
    p.min_number = q.min_number;
    p.max_number = q.max_number;
    p.choices = q.choices;
    p.custom_unit = q.custom_unit;
    p.echo_default = q.echo_default;
    out.push_back(std::move(p));
  }
}

}  // namespace sim
