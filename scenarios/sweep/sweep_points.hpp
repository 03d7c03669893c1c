// The points of a sweep, in a fixed order: combinations of axis values (product: the first
// axis varies slowest, as nested loops; zip: the i-th value of every axis), each repeated
// `repeats` times (innermost), minus the combinations a constraint drops. A point's id is its
// index in that order, so the same sweep file always gives the same ids.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scenarios/loader/scenario.hpp"
#include "scenarios/sweep/sweep_spec.hpp"

namespace scen::sweep {

// A sweep refuses to expand into more points than this (a product of long ranges is
// usually a mistake, and every point is a whole simulation).
constexpr size_t kMaxPoints = 1000000;

struct SweepPoint {
  size_t id = 0;
  std::vector<Json> values;  // one per axis, in axis order
  int repeat = 0;
  uint64_t seed = 1;
};

// Repeat 0 runs with the base seed (a point is then exactly `rdmasim run BASE --set ...`);
// repeat r > 0 with sim::derive_seed(base seed, r) >> 1 (a scenario seed has 63 bits). Every
// combination uses the same seeds (common random numbers): differences between points come from the
// parameters, not luck. An axis on "seed" replaces the base seed of its points.
uint64_t point_seed(uint64_t base_seed, int repeat);

std::vector<SweepPoint> expand_points(const SweepSpec& spec);

// The point's values as --set assignments ("path=<JSON value>").
std::vector<std::string> point_assignments(const SweepSpec& spec, const SweepPoint& p);

// "kmin=5KB kmax=200KB repeat=1": the point as people read it in messages.
std::string point_label(const SweepSpec& spec, const SweepPoint& p);

// Loads the point's scenario: the base with the point's values applied exactly as --set and
// its seed, through every validation of a normal run. An InputError names the axis and the
// point in its path. `max_memory_bytes` as LoadOptions' (0: the machine's memory).
Scenario load_point(const SweepSpec& spec, const SweepPoint& p, int64_t max_memory_bytes = 0);

}  // namespace scen::sweep
