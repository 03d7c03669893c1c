// Workload generators. The oracles come from outside the code: the definition of a
// derangement and its count (!4 = 9), the χ² test of uniformity, the mean of a piecewise-linear
// CDF worked out by hand, and the law of large numbers for the offered load of a Poisson process.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <map>
#include <numeric>
#include <set>
#include <sstream>
#include <stdexcept>

#include "models/workloads/generators.hpp"

using models::FlowSpec;
using namespace sim::literals;

namespace {

std::vector<int> spaced_hosts(int n) {  // host numbers that are not just 0..n-1
  std::vector<int> hosts;
  for (int i = 0; i < n; ++i) hosts.push_back(3 * i + 7);
  return hosts;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

models::SizeCdf websearch() {
  const std::string path = std::string(RDMASIM_SOURCE_DIR) + "/scenarios/data/websearch.cdf";
  return models::parse_size_cdf(read_text(path), path);
}

}  // namespace

TEST_CASE("workloads: permutation is a derangement, every host once as source and destination",
          "[mechanism]") {
  const std::vector<int> hosts = spaced_hosts(50);
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    sim::Rng rng(seed);
    const auto flows = models::make_permutation({hosts, 4096, 5_us}, rng);
    REQUIRE(flows.size() == hosts.size());
    std::multiset<int> srcs, dsts;
    for (const FlowSpec& f : flows) {
      CHECK(f.src_host != f.dst_host);
      CHECK(f.bytes == 4096);
      CHECK(f.start == 5_us);
      CHECK(f.tag == "permutation");
      srcs.insert(f.src_host);
      dsts.insert(f.dst_host);
    }
    const std::multiset<int> expected(hosts.begin(), hosts.end());
    CHECK(srcs == expected);
    CHECK(dsts == expected);
  }
}

TEST_CASE("workloads: permutation is deterministic per seed and differs across seeds",
          "[mechanism]") {
  const std::vector<int> hosts = spaced_hosts(64);
  auto pairs = [&](uint64_t seed) {
    sim::Rng rng(seed);
    std::vector<std::pair<int, int>> out;
    for (const FlowSpec& f : models::make_permutation({hosts, 1, 0_ns}, rng)) {
      out.emplace_back(f.src_host, f.dst_host);
    }
    return out;
  };
  CHECK(pairs(42) == pairs(42));
  CHECK(pairs(42) != pairs(43));
  CHECK(pairs(1) != pairs(2));
}

// Four hosts have !4 = 9 derangements: six 4-cycles and three pairs of swaps. A uniform draw
// gives each about 1/9 of the time; a single-cycle method (Sattolo) would never give the swaps.
TEST_CASE("workloads: permutation is uniform over derangements", "[mechanism]") {
  const std::vector<int> hosts = {0, 1, 2, 3};
  sim::Rng rng(7);
  std::map<std::vector<int>, int> counts;
  const int draws = 90'000;
  for (int i = 0; i < draws; ++i) {
    std::vector<int> dst(4);
    for (const FlowSpec& f : models::make_permutation({hosts, 1, 0_ns}, rng)) {
      dst[static_cast<size_t>(f.src_host)] = f.dst_host;
    }
    ++counts[dst];
  }
  REQUIRE(counts.size() == 9);
  CHECK(counts.count({1, 0, 3, 2}) == 1);  // a pair of swaps
  double chi2 = 0;
  const double expected = draws / 9.0;
  for (const auto& [perm, n] : counts) chi2 += (n - expected) * (n - expected) / expected;
  CHECK(chi2 < 26.1);  // χ² with 8 degrees of freedom: P(χ² > 26.1) = 0.001
}

TEST_CASE("workloads: permutation edge cases", "[mechanism]") {
  sim::Rng rng(3);
  CHECK(models::make_permutation({{}, 1, 0_ns}, rng).empty());
  const auto two = models::make_permutation({{4, 9}, 1, 0_ns}, rng);
  REQUIRE(two.size() == 2);
  CHECK(two[0].src_host == 4);
  CHECK(two[0].dst_host == 9);
  CHECK(two[1].dst_host == 4);
  CHECK_THROWS_AS(models::make_permutation({{5}, 1, 0_ns}, rng), std::invalid_argument);
  CHECK_THROWS_AS(models::make_permutation({{1, 2, 1}, 1, 0_ns}, rng), std::invalid_argument);
  CHECK_THROWS_AS(models::make_permutation({{1, 2}, 0, 0_ns}, rng), std::invalid_argument);
}

TEST_CASE("workloads: incast sends one flow from each sender to the receiver", "[mechanism]") {
  const auto flows = models::make_incast({{1, 2, 3, 4, 5, 6, 7, 8}, 0, 1'000'000, 2_us});
  REQUIRE(flows.size() == 8);
  std::set<int> senders;
  for (const FlowSpec& f : flows) {
    CHECK(f.dst_host == 0);
    CHECK(f.bytes == 1'000'000);
    CHECK(f.start == 2_us);
    CHECK(f.tag == "incast");
    senders.insert(f.src_host);
  }
  CHECK(senders == std::set<int>{1, 2, 3, 4, 5, 6, 7, 8});
  CHECK_THROWS_AS(models::make_incast({{1, 0}, 0, 1, 0_ns}), std::invalid_argument);
  CHECK_THROWS_AS(models::make_incast({{1, 1}, 0, 1, 0_ns}), std::invalid_argument);
}

TEST_CASE("workloads: all-to-all sends once along every ordered pair of distinct hosts",
          "[mechanism]") {
  const std::vector<int> hosts = spaced_hosts(9);
  const auto flows = models::make_all_to_all({hosts, 512, 1_ns});
  CHECK(flows.size() == 9 * 8);
  std::set<std::pair<int, int>> pairs;
  for (const FlowSpec& f : flows) {
    CHECK(f.src_host != f.dst_host);
    CHECK(f.bytes == 512);
    pairs.emplace(f.src_host, f.dst_host);
  }
  CHECK(pairs.size() == 9 * 8);
  CHECK(models::make_all_to_all({{5}, 1, 0_ns}).empty());
}

TEST_CASE("workloads: start jitter adds a delay within [0, jitter], zero jitter changes nothing",
          "[mechanism]") {
  auto flows = models::make_all_to_all({spaced_hosts(20), 1, 10_us});
  sim::Rng rng(11);
  models::apply_start_jitter(flows, 0_ns, rng);
  for (const FlowSpec& f : flows) CHECK(f.start == 10_us);
  models::apply_start_jitter(flows, 3_ns, rng);
  std::set<int64_t> offsets;
  for (const FlowSpec& f : flows) {
    CHECK(f.start >= 10_us);
    CHECK(f.start <= 10_us + 3_ns);
    offsets.insert((f.start - 10_us).ps);
  }
  CHECK(offsets.size() > 100);  // 380 draws over 3001 values: not all alike
}

TEST_CASE("workloads: CDF text in fractions or percent, with comments, blanks and CRLF",
          "[mechanism]") {
  const auto fraction = models::parse_size_cdf("# sizes\n0 0\n100 0.5  # half\n\n300 1\n", "a");
  const auto percent = models::parse_size_cdf("0 0\r\n100 50\r\n300 100\r\n", "b");
  const std::vector<std::pair<double, double>> expected = {{0, 0}, {100, 0.5}, {300, 1}};
  CHECK(fraction.points == expected);
  CHECK(percent.points == expected);
}

TEST_CASE("workloads: CDF parsing errors name the file and line", "[mechanism]") {
  auto message_of = [](const std::string& text) {
    try {
      models::parse_size_cdf(text, "sizes.cdf");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  using Catch::Matchers::Contains;
  CHECK_THAT(message_of("0 0\n# c\n10 x\n20 1\n"), Contains("sizes.cdf:3") && Contains("'x'"));
  CHECK_THAT(message_of("0 0\n10 0.5 7\n20 1\n"), Contains("sizes.cdf:2"));
  CHECK_THAT(message_of("0 0\n10\n20 1\n"), Contains("sizes.cdf:2"));
  CHECK_THAT(message_of("0 0\n20 0.5\n10 1\n"), Contains("sizes.cdf:3") && Contains("decrease"));
  CHECK_THAT(message_of("0 0\n10 0.6\n20 0.5\n30 1\n"), Contains("sizes.cdf:3"));
  CHECK_THAT(message_of("-5 0\n20 1\n"), Contains("sizes.cdf:1"));
  CHECK_THAT(message_of("0 0\n10 0.5\n\n20 0.9\n"), Contains("sizes.cdf:4") && Contains("100"));
  CHECK_THAT(message_of("# nothing\n\n"), Contains("sizes.cdf"));
}

// Hand computation: uniform on [0,100] with probability 0.5 (mean 50) and uniform on [100,300]
// with probability 0.5 (mean 200): 25 + 100 = 125. With a point mass of 0.2 at 10 and uniform
// on [10,20] for 0.8: 2 + 12 = 14. WebSearch, segment by segment from the DCTCP points:
// 750 + 750 + 2500 + 4000 + 8450 + 9800 + 60000 + 150000 + 350000 + 525000 + 600000.
TEST_CASE("workloads: mean_bytes is the piecewise-linear mean worked out by hand", "[mechanism]") {
  CHECK(models::parse_size_cdf("0 0\n100 0.5\n300 1\n", "t").mean_bytes() == Approx(125.0));
  CHECK(models::parse_size_cdf("10 0.2\n20 1\n", "t").mean_bytes() == Approx(14.0));
  CHECK(models::parse_size_cdf("4096 1\n", "t").mean_bytes() == Approx(4096.0));
  CHECK(websearch().mean_bytes() == Approx(1'711'250.0));
}

TEST_CASE("workloads: CDF sampling reproduces the mean and the distribution", "[mechanism]") {
  const models::SizeCdf cdf = websearch();
  sim::Rng rng(2024);
  const int n = 200'000;
  std::vector<int64_t> samples(n);
  double sum = 0;
  for (auto& s : samples) {
    s = cdf.sample(rng);
    sum += static_cast<double>(s);
  }
  CHECK(sum / n == Approx(cdf.mean_bytes()).epsilon(0.02));
  std::sort(samples.begin(), samples.end());
  CHECK(samples.front() >= 1);
  CHECK(samples.back() <= 30'000'000);
  for (const auto& [size, p] : cdf.points) {
    const auto below = std::upper_bound(samples.begin(), samples.end(), std::llround(size));
    const double empirical = static_cast<double>(below - samples.begin()) / n;
    CHECK(empirical == Approx(p).margin(0.005));  // σ ≤ 0.0012 at n = 200k
  }
  // A point mass stays a point mass.
  const auto fixed = models::parse_size_cdf("4096 1\n", "t");
  for (int i = 0; i < 100; ++i) CHECK(fixed.sample(rng) == 4096);
}

// Offered load = Σ bytes·8 / duration / (hosts · rate). At 35k flows/s the 3 s window holds
// about 105k WebSearch flows; the standard deviation of the offered load is then about 0.8%.
TEST_CASE("workloads: Poisson arrivals offer the target load", "[mechanism]") {
  models::PoissonParams p;
  p.hosts = spaced_hosts(16);
  p.cdf = websearch();
  p.load = 0.3;
  p.host_rate_bps = 100'000'000'000;
  p.start = 2_s;
  p.duration = 3_s;
  sim::Rng rng(99);
  const auto flows = models::make_poisson(p, rng);

  const double lambda = 0.3 * 100e9 * 16 / (8 * 1'711'250.0);  // flows per second
  const double expected_flows = lambda * 3.0;
  CHECK(std::abs(static_cast<double>(flows.size()) - expected_flows) <
        5 * std::sqrt(expected_flows));

  double bits = 0;
  sim::Time previous = p.start;
  std::map<int, int> per_source;
  const std::set<int> hosts(p.hosts.begin(), p.hosts.end());
  for (const FlowSpec& f : flows) {
    bits += static_cast<double>(f.bytes) * 8;
    CHECK(f.start >= previous);  // arrivals come in order
    CHECK(f.start < p.start + p.duration);
    previous = f.start;
    CHECK(f.src_host != f.dst_host);
    CHECK(hosts.count(f.src_host) == 1);
    CHECK(hosts.count(f.dst_host) == 1);
    ++per_source[f.src_host];
  }
  const double offered = bits / 3.0 / (16 * 100e9);
  CHECK(offered == Approx(0.3).epsilon(0.05));
  // Sources are uniform: each host's count within 5σ of n/16.
  const double mean = static_cast<double>(flows.size()) / 16;
  for (const auto& [host, count] : per_source) CHECK(std::abs(count - mean) < 5 * std::sqrt(mean));
}

TEST_CASE("workloads: Poisson arrivals are deterministic per seed", "[mechanism]") {
  models::PoissonParams p;
  p.hosts = spaced_hosts(8);
  p.cdf = models::parse_size_cdf("1000 0\n9000 1\n", "t");
  p.load = 0.5;
  p.host_rate_bps = 25'000'000'000;
  p.duration = 200_us;
  auto starts = [&](uint64_t seed) {
    sim::Rng rng(seed);
    std::vector<std::tuple<int64_t, int, int, int64_t>> out;
    for (const FlowSpec& f : models::make_poisson(p, rng)) {
      out.emplace_back(f.start.ps, f.src_host, f.dst_host, f.bytes);
    }
    return out;
  };
  CHECK(starts(5) == starts(5));
  CHECK(starts(5) != starts(6));
  CHECK_FALSE(starts(5).empty());
}
