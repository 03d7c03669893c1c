// The switch MMU (models/switch_buffer.hpp) on its own: the dynamic threshold's arithmetic
// (α × free shared pool), reserves counted first and released last, lossless XOFF/headroom/XON
// with static and dynamic thresholds, the shared headroom pool, and lossy admission.
#include <catch2/catch.hpp>
#include <vector>

#include "models/switch_buffer.hpp"

namespace {

using models::Admission;
using models::Alpha;
using models::SwitchBuffer;
using models::SwitchBufferParams;
using models::ThresholdMode;

struct Transitions final : models::XoffListener {
  std::vector<std::pair<bool, int64_t>> events;  // (xoff?, bytes held)
  void on_xoff(uint16_t, uint8_t, int64_t held) override { events.emplace_back(true, held); }
  void on_xon(uint16_t, uint8_t, int64_t held) override { events.emplace_back(false, held); }
};

SwitchBufferParams params(int64_t buffer, ThresholdMode mode, Alpha a = {1, 8},
                          int64_t reserve = 0) {
  SwitchBufferParams p;
  p.buffer_bytes = buffer;
  p.threshold_mode = mode;
  p.alpha = a;
  p.reserve_bytes = reserve;
  return p;
}

}  // namespace

TEST_CASE("mmu: the dynamic threshold is alpha x free shared pool, rounded down",
          "[mechanism][mmu]") {
  CHECK(models::dynamic_threshold(800'000, {1, 8}) == 100'000);
  CHECK(models::dynamic_threshold(800'000, {1, 16}) == 50'000);
  CHECK(models::dynamic_threshold(800'000, {8, 1}) == 6'400'000);
  CHECK(models::dynamic_threshold(1'000, {1, 3}) == 333);
  CHECK(models::dynamic_threshold(0, {1, 8}) == 0);
  CHECK(models::dynamic_threshold(-5, {2, 1}) == 0);
  // Large pools do not overflow.
  CHECK(models::dynamic_threshold(int64_t{1} << 50, {64, 1}) == int64_t{1} << 56);
  // A product past 64 bits takes the 128-bit path, a quotient that fits does not lose bits.
  CHECK(models::dynamic_threshold(int64_t{1} << 62, {3, 4}) == 3 * (int64_t{1} << 60));
  CHECK(models::dynamic_threshold((int64_t{1} << 62) + 7, {7, 8}) ==
        static_cast<int64_t>((static_cast<__int128>((int64_t{1} << 62) + 7) * 7) / 8));

  // In the buffer: the pool shrinks as it fills, and so does everyone's threshold.
  SwitchBuffer b(params(100'000, ThresholdMode::Dynamic, {1, 4}), 4);
  CHECK(b.shared_pool_bytes() == 100'000);
  CHECK(b.dynamic_threshold_now(2, 0) == 25'000);
  REQUIRE(b.admit(0, 1, 0, 10'000) == Admission::Admitted);
  CHECK(b.shared_used() == 10'000);
  CHECK(b.dynamic_threshold_now(2, 0) == 22'500);
}

TEST_CASE("mmu: reserves are set aside from the pool, counted first and released last",
          "[mechanism][mmu]") {
  // 2 ports x 8 priorities x 1,000 B of reserve leave 84,000 B of shared pool.
  SwitchBuffer b(params(100'000, ThresholdMode::Static, {1, 8}, 1'000), 2);
  CHECK(b.reserved_bytes() == 16'000);
  CHECK(b.shared_pool_bytes() == 84'000);
  REQUIRE(b.admit(0, 1, 0, 600) == Admission::Admitted);
  CHECK(b.shared_used() == 0);  // within the reserve
  REQUIRE(b.admit(0, 1, 0, 600) == Admission::Admitted);
  CHECK(b.shared_used() == 200);  // 400 B filled the reserve, 200 B went to the pool
  CHECK(b.ingress_bytes(0, 0) == 1'200);
  b.release(0, 1, 0, 600);
  CHECK(b.shared_used() == 0);  // the shared part leaves first
  CHECK(b.ingress_bytes(0, 0) == 600);
  b.release(0, 1, 0, 600);
  CHECK(b.used() == 0);

  // A per-(port, priority) reserve changes the pool by the difference.
  b.set_reserve(1, 3, 5'000);
  CHECK(b.shared_pool_bytes() == 80'000);

  // A lossy class in its reserve is admitted even with the pool full.
  SwitchBuffer full(params(20'000, ThresholdMode::Static, {1, 8}, 1'000), 1);
  CHECK(full.shared_pool_bytes() == 12'000);
  REQUIRE(full.admit(0, 0, 1, 13'000) == Admission::Admitted);  // 1,000 reserve + 12,000 pool
  CHECK(full.admit(0, 0, 1, 100) == Admission::TailDrop);       // pool full
  CHECK(full.admit(0, 0, 2, 1'000) == Admission::Admitted);     // priority 2's reserve
  CHECK(full.admit(0, 0, 2, 1) == Admission::TailDrop);
}

TEST_CASE("mmu: lossy classes under a dynamic threshold take alpha / (1 + alpha) of the pool",
          "[mechanism][mmu]") {
  // One egress, alpha = 1: admitted while egress + packet <= free; 45 of 1,000 B fit in 90,000.
  SwitchBuffer b(params(90'000, ThresholdMode::Dynamic, {1, 1}), 2);
  int admitted = 0;
  while (b.admit(0, 1, 0, 1'000) == Admission::Admitted) ++admitted;
  CHECK(admitted == 45);
  // A second egress gets alpha x what is left: 23 packets (23,000 <= 45,000 - 22,000).
  int second = 0;
  while (b.admit(0, 0, 0, 1'000) == Admission::Admitted) ++second;
  CHECK(second == 23);
  // Static thresholds: the whole pool, then the queue cap.
  SwitchBuffer s(params(90'000, ThresholdMode::Static), 2);
  s.set_queue_limit(1, 0, 10'000);
  int capped = 0;
  while (s.admit(0, 1, 0, 1'000) == Admission::Admitted) ++capped;
  CHECK(capped == 10);
}

TEST_CASE("mmu: a lossless ingress pauses at alpha x free, fills headroom, resumes below it",
          "[mechanism][mmu]") {
  SwitchBuffer b(params(100'000, ThresholdMode::Dynamic, {1, 8}), 2);
  Transitions t;
  b.set_xoff_listener(&t);
  b.set_lossless_thresholds({/*xoff*/ 50'000, /*xon_offset*/ 1'000, /*headroom_pool*/ 0});
  b.set_headroom(0, 3, 5'000);
  CHECK(b.shared_pool_bytes() == 95'000);
  // 1,000-B packets: the 11th would make 11,000 > (95,000 - 10,000) / 8 = 10,625.
  for (int i = 0; i < 10; ++i) REQUIRE(b.admit(0, 1, 3, 1'000) == Admission::Admitted);
  CHECK(t.events.empty());
  REQUIRE(b.admit(0, 1, 3, 1'000) == Admission::Admitted);
  REQUIRE(t.events.size() == 1);
  CHECK(t.events[0] == std::pair{true, int64_t{10'000}});
  CHECK(b.headroom_bytes(0, 3) == 1'000);  // the crossing packet is the first in headroom
  CHECK(b.shared_used() == 10'000);
  for (int i = 0; i < 4; ++i) REQUIRE(b.admit(0, 1, 3, 1'000) == Admission::Admitted);
  CHECK(b.admit(0, 1, 3, 1'000) == Admission::HeadroomExhausted);  // 5,000 B of headroom used
  CHECK(b.peak_headroom_bytes(0, 3) == 5'000);
  CHECK(b.peak_headroom_used() == 5'000);
  // Departures drain the headroom first; XON needs it empty and 11,000 <= threshold again.
  for (int i = 0; i < 5; ++i) b.release(0, 1, 3, 1'000);
  CHECK(b.headroom_bytes(0, 3) == 0);
  CHECK(t.events.size() == 1);  // 10,000 + 1,000 > 85,000 / 8
  b.release(0, 1, 3, 1'000);    // 9,000 + 1,000 <= 86,000 / 8 = 10,750
  REQUIRE(t.events.size() == 2);
  CHECK(t.events[1] == std::pair{false, int64_t{9'000}});

  // Congestion elsewhere lowers the threshold: with another port holding 40,000 shared bytes
  // (a lossy class) this ingress pauses once x + 1,000 > (95,000 - 40,000 - x) / 8, at 6,000
  // bytes instead of 10,000.
  SwitchBuffer c(params(100'000, ThresholdMode::Dynamic, {1, 8}), 2);
  Transitions tc;
  c.set_xoff_listener(&tc);
  c.set_lossless_thresholds({50'000, 1'000, 0});
  c.set_headroom(0, 3, 5'000);
  REQUIRE(c.admit(1, 0, 0, 1'000) == Admission::Admitted);
  c.set_alpha(0, 0, {8, 1});
  REQUIRE(c.admit(1, 0, 0, 39'000) == Admission::Admitted);
  while (tc.events.empty()) REQUIRE(c.admit(0, 1, 3, 1'000) == Admission::Admitted);
  CHECK(tc.events[0].second == 6'000);
}

TEST_CASE("mmu: static thresholds apply above the reserve, a full pool also pauses",
          "[mechanism][mmu]") {
  SwitchBuffer b(params(200'000, ThresholdMode::Static, {1, 8}, 2'000), 1);
  Transitions t;
  b.set_xoff_listener(&t);
  b.set_lossless_thresholds({10'000, 4'000, 0});
  b.set_headroom(0, 3, 6'000);
  for (int i = 0; i < 12; ++i) REQUIRE(b.admit(0, 0, 3, 1'000) == Admission::Admitted);
  CHECK(t.events.empty());  // 2,000 reserve + 10,000 shared
  REQUIRE(b.admit(0, 0, 3, 1'000) == Admission::Admitted);
  REQUIRE(t.events.size() == 1);
  CHECK(t.events[0].second == 12'000);
  // XON at 6,000 shared bytes (10,000 - 4,000): 8,000 held with the reserve.
  b.release(0, 0, 3, 1'000);  // the headroom byte first
  for (int i = 0; i < 3; ++i) b.release(0, 0, 3, 1'000);
  CHECK(t.events.size() == 1);  // 9,000 held: 7,000 shared
  b.release(0, 0, 3, 1'000);
  REQUIRE(t.events.size() == 2);
  CHECK(t.events[1] == std::pair{false, int64_t{8'000}});

  // A pool smaller than the static threshold: XOFF when the pool is full.
  SwitchBuffer small(params(30'000, ThresholdMode::Static), 1);
  Transitions ts;
  small.set_xoff_listener(&ts);
  small.set_lossless_thresholds({100'000, 4'000, 0});
  small.set_headroom(0, 3, 10'000);
  CHECK(small.shared_pool_bytes() == 20'000);
  for (int i = 0; i < 20; ++i) REQUIRE(small.admit(0, 0, 3, 1'000) == Admission::Admitted);
  CHECK(ts.events.empty());
  REQUIRE(small.admit(0, 0, 3, 1'000) == Admission::Admitted);
  CHECK(ts.events.size() == 1);
}

TEST_CASE("mmu: a shared headroom pool smaller than the allocations bounds them together",
          "[mechanism][mmu]") {
  SwitchBuffer b(params(100'000, ThresholdMode::Static), 3);
  b.set_lossless_thresholds({1'000, 500, /*headroom_pool*/ 6'000});
  for (uint16_t port = 0; port < 3; ++port) b.set_headroom(port, 3, 5'000);
  CHECK(b.headroom_pool_bytes() == 6'000);
  CHECK(b.shared_pool_bytes() == 94'000);
  // Port 0 pauses and uses 4,000 B of headroom; port 1 then finds only 2,000 B of the pool.
  REQUIRE(b.admit(0, 2, 3, 1'000) == Admission::Admitted);
  for (int i = 0; i < 4; ++i) REQUIRE(b.admit(0, 2, 3, 1'000) == Admission::Admitted);
  CHECK(b.headroom_bytes(0, 3) == 4'000);
  REQUIRE(b.admit(1, 2, 3, 1'000) == Admission::Admitted);
  REQUIRE(b.admit(1, 2, 3, 1'000) == Admission::Admitted);
  REQUIRE(b.admit(1, 2, 3, 1'000) == Admission::Admitted);
  CHECK(b.admit(1, 2, 3, 1'000) == Admission::HeadroomExhausted);
  CHECK(b.headroom_used() == 6'000);
  CHECK(b.peak_headroom_used() == 6'000);
}
