// What an in-network call has in flight (models/collectives/in_flight.hpp) and the table that
// holds its messages (sim/stable_vector.hpp): the call is over once every message is complete
// and every group done, and exactly one caller hears so, however the threads interleave.
#include "models/collectives/in_flight.hpp"

#include <atomic>
#include <catch2/catch.hpp>
#include <stdexcept>
#include <thread>
#include <vector>

#include "sim/stable_vector.hpp"

TEST_CASE("a stable table keeps its elements in place and empties for the next call",
          "[unit][split]") {
  sim::StableVector<int, 4, 128> v;
  for (int i = 0; i < 10; ++i) CHECK(v.push_back(i * 10) == static_cast<size_t>(i));
  const int* fifth = &v[5];
  for (int i = 10; i < 100; ++i) v.push_back(i * 10);
  CHECK(&v[5] == fifth);  // appends never move what was there
  CHECK(v[99] == 990);
  v.clear();
  CHECK(v.size() == 0);
  CHECK(v.push_back(7) == 0);
  CHECK(v[0] == 7);
  // Its bound: 128 elements, then a clear error rather than a write past the table.
  for (int i = 1; i < 128; ++i) v.push_back(i);
  CHECK(v.size() == 128);
  CHECK_THROWS_AS(v.push_back(128), std::length_error);
  CHECK_THROWS_AS(v.grow_to(129), std::length_error);
  CHECK(v.size() == 128);
}

TEST_CASE("an in-network call is over once its messages are complete and its groups done",
          "[unit][split]") {
  models::InFlight<int> f;
  f.reset();
  CHECK(f.add(11) == 0);
  CHECK(f.add(12) == 1);
  CHECK(f[1] == 12);
  CHECK_FALSE(f.group_done(2));        // a group done, a message open
  CHECK_FALSE(f.complete_message(2));  // one message open still
  CHECK_FALSE(f.complete_message(2));  // no message open, one group to go
  CHECK(f.group_done(2));              // the last: over
  CHECK_FALSE(f.complete_message(2));  // heard once only
  f.reset();                           // the next call
  CHECK(f.add(13) == 0);
  CHECK(f.group_done(1) == false);
  CHECK(f.complete_message(1));
}

TEST_CASE("an in-network call's end is heard once when threads finish it together",
          "[unit][split]") {
  // Two threads: one completes the messages, the other the groups; whichever interleaving,
  // exactly one of them finds the call over.
  for (int round = 0; round < 200; ++round) {
    models::InFlight<int> f;
    f.reset();
    for (int m = 0; m < 64; ++m) f.add(m);
    std::atomic<int> over{0};
    std::thread groups([&] {
      for (int g = 0; g < 64; ++g) over += f.group_done(64) ? 1 : 0;
    });
    for (int m = 0; m < 64; ++m) over += f.complete_message(64) ? 1 : 0;
    groups.join();
    REQUIRE(over == 1);
  }
}
