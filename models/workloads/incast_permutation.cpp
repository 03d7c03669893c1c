// The fixed traffic patterns: incast, random permutation, all-to-all, and start jitter.
#include <algorithm>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>

#include "models/workloads/generators.hpp"

namespace models {
namespace {

// Generators are called by the scenario loader after it has validated its input; a bad
// argument here is a programming error of the caller, so it is reported, never patched up.
void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("workload generator: " + what);
}

void require_distinct(const std::vector<int>& hosts, const char* generator) {
  std::set<int> seen;
  for (int h : hosts) {
    require(h >= 0, std::string(generator) + ": host numbers must be >= 0");
    require(seen.insert(h).second,
            std::string(generator) + ": host " + std::to_string(h) + " is listed twice");
  }
}

FlowSpec flow(int src, int dst, int64_t bytes, sim::Time start, const char* tag) {
  FlowSpec f;
  f.src_host = src;
  f.dst_host = dst;
  f.bytes = bytes;
  f.start = start;
  f.tag = tag;
  return f;
}

}  // namespace

std::vector<FlowSpec> make_incast(const IncastParams& p) {
  require(p.bytes > 0, "incast: bytes must be > 0");
  require(p.receiver >= 0, "incast: receiver must be >= 0");
  require_distinct(p.senders, "incast");
  std::vector<FlowSpec> flows;
  flows.reserve(p.senders.size());
  for (int s : p.senders) {
    require(s != p.receiver, "incast: the receiver cannot also be a sender");
    flows.push_back(flow(s, p.receiver, p.bytes, p.start, "incast"));
  }
  return flows;
}

// A uniformly random derangement by rejection: shuffle with Fisher–Yates (every permutation
// equally likely) and start again if any host would send to itself. Conditioning a uniform
// permutation on "no fixed point" leaves it uniform over derangements, and since about 1/e of
// permutations are derangements the expected number of attempts is e ≈ 2.72. Sattolo's
// algorithm would never need a retry but only yields single n-cycles, which is not uniform
// over derangements (for n = 4 it never produces the pairing 0↔1, 2↔3).
//
// The descending Fisher–Yates fixes position i for good at step i, so an attempt is abandoned
// as soon as a fixed point appears there; the accepted outcomes, and their probabilities, are
// the same as if every attempt were completed, it only saves work.
std::vector<FlowSpec> make_permutation(const PermutationParams& p, sim::Rng& rng) {
  require(p.bytes > 0, "permutation: bytes must be > 0");
  require_distinct(p.hosts, "permutation");
  const size_t n = p.hosts.size();
  if (n == 0) return {};
  require(n >= 2, "permutation: needs at least 2 hosts (one host cannot send to another)");

  std::vector<size_t> target(n);  // target[i]: index in hosts of the receiver of hosts[i]
  for (bool done = false; !done;) {
    std::iota(target.begin(), target.end(), size_t{0});
    done = true;
    for (size_t i = n - 1; i > 0; --i) {
      std::swap(target[i], target[rng.below(i + 1)]);
      if (target[i] == i) {
        done = false;
        break;
      }
    }
    if (done && target[0] == 0) done = false;
  }

  std::vector<FlowSpec> flows;
  flows.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    flows.push_back(flow(p.hosts[i], p.hosts[target[i]], p.bytes, p.start, "permutation"));
  }
  return flows;
}

std::vector<FlowSpec> make_all_to_all(const AllToAllParams& p) {
  require(p.bytes > 0, "all-to-all: bytes must be > 0");
  require_distinct(p.hosts, "all-to-all");
  std::vector<FlowSpec> flows;
  if (p.hosts.size() >= 2) flows.reserve(p.hosts.size() * (p.hosts.size() - 1));
  for (int src : p.hosts) {
    for (int dst : p.hosts) {
      if (src != dst) flows.push_back(flow(src, dst, p.bytes, p.start, "all-to-all"));
    }
  }
  return flows;
}

// Each flow draws one integer delay uniform in [0, jitter] picoseconds, in flow order, so the
// result depends only on the flow list and the stream. Jitter 0 draws nothing.
void apply_start_jitter(std::vector<FlowSpec>& flows, sim::Time jitter, sim::Rng& rng) {
  require(jitter.ps >= 0, "start jitter must be >= 0");
  if (jitter.ps == 0) return;
  const uint64_t span = static_cast<uint64_t>(jitter.ps) + 1;
  for (FlowSpec& f : flows) f.start += sim::Time(static_cast<int64_t>(rng.below(span)));
}

}  // namespace models
