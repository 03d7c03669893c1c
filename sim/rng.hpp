// Random streams. Every component draws from its own stream derived from the run's seed and
// the component's stable id, so adding a component never shifts another's draws, and runs are
// identical on any machine (xoshiro256** and splitmix64 are fully specified; no std::
// distributions, whose output differs between standard libraries).
#pragma once

#include <cstdint>

#include "sim/exact_math.hpp"

namespace sim {

constexpr uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Mixes a seed with a stream id into a new 64-bit seed.
constexpr uint64_t derive_seed(uint64_t seed, uint64_t stream_id) {
  uint64_t s = seed ^ (stream_id * 0xd1b54a32d192ed03ULL);
  splitmix64(s);
  return splitmix64(s);
}

// xoshiro256** (Blackman & Vigna, 2018).
class Rng {
 public:
  explicit Rng(uint64_t seed = 1) {
    uint64_t s = seed;
    for (auto& w : state_) w = splitmix64(s);
  }
  Rng(uint64_t seed, uint64_t stream_id) : Rng(derive_seed(seed, stream_id)) {}

  uint64_t next() {
    const uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }
  // Uniform in [0, n), unbiased (Lemire's multiply-and-reject).
  uint64_t below(uint64_t n) {
    uint64_t x = next();
    __uint128_t m = static_cast<__uint128_t>(x) * n;
    uint64_t l = static_cast<uint64_t>(m);
    if (l < n) {
      const uint64_t t = (0 - n) % n;
      while (l < t) {
        x = next();
        m = static_cast<__uint128_t>(x) * n;
        l = static_cast<uint64_t>(m);
      }
    }
    return static_cast<uint64_t>(m >> 64);
  }
  // Uniform in [0, 1) with 53 bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Exponential with the given mean (inverse transform; 1 - u is exact, and the logarithm is
  // the machine-independent one).
  double exponential(double mean) { return -mean * log_exact(1.0 - uniform()); }

 private:
  static constexpr uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t state_[4];
};

}  // namespace sim
