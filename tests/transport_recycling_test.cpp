// Reuse of finished collective messages' flow and QP slots (models/transport_recycling.cpp):
// the transport's memory follows the messages in flight, not the messages posted, and the
// results are those of fresh ids.
#include <algorithm>
#include <catch2/catch.hpp>

#include "models/collectives/collective_runner.hpp"
#include "scenario_helpers.hpp"
#include "scenarios/builder/build_network.hpp"
#include "topologies/partition.hpp"

namespace {

using test_support::star;

scen::Json scenario(const scen::Json& collective, double loss_rate) {
  scen::Json j;
  j["name"] = "recycling";
  j["topology"] = star(8);
  j["fabric"]["switch"] = {{"latency", "500ns"}};
  j["fabric"]["nic"] = {{"rto", "20us"}};
  j["fabric"]["link"] = {{"loss_rate", loss_rate}};
  j["workload"]["collective"] = collective;
  return j;
}

// Watches the transport at every completion: how many messages are in flight (posted, not
// finished) and how many flow slots it holds.
class Watch final : public models::CompletionListener {
 public:
  explicit Watch(const models::Transport& t) : t_(t) {}
  void on_flow_complete(uint32_t) override {
    size_t in_flight = 0;
    for (uint32_t f = 0; f < t_.flow_count(); ++f) in_flight += t_.flow(f).done ? 0 : 1;
    peak_in_flight = std::max(peak_in_flight, in_flight + 1);  // + the one just finished
    peak_slots = std::max(peak_slots, t_.flow_count());
  }
  size_t peak_in_flight = 0, peak_slots = 0;

 private:
  const models::Transport& t_;
};

struct Run {
  std::vector<models::CollectiveResult> results;
  uint64_t posted = 0;  // messages over all sizes
  size_t slots = 0, qps = 0, peak_in_flight = 0, peak_slots = 0, reused = 0;
  uint64_t retransmitted = 0;
};

// `partitions` > 1: split, a thread per partition (no Watch: it reads every flow at once).
Run run(const scen::Json& j, bool reuse, int partitions = 1) {
  const scen::Scenario s = test_support::load(j);
  sim::Simulator sim(s.seed);
  std::vector<int> node_partition;
  if (partitions > 1) {
    const topo::Partitioning part = topo::partition_fabric(s.fabric, partitions);
    REQUIRE(part.count == partitions);
    sim.split(static_cast<uint32_t>(part.count), sim::Time(part.lookahead_ps));
    sim.set_threads(static_cast<uint32_t>(part.count));
    node_partition = part.partition;
  }
  auto net = scen::build_network(s, sim, node_partition);
  if (!reuse) net->transport->keep_qp_ids();
  models::CollectiveRunner runner(net->ctx, *net->transport, s.collectives.at(0), 0, s.seed);
  runner.start();
  Watch watch(*net->transport);
  if (partitions == 1) net->transport->add_listener(&watch);
  sim.run(sim::Time(50'000'000'000));  // 50 ms, far beyond the run
  REQUIRE(runner.done());
  Run r;
  r.results = runner.results();
  for (const auto& c : r.results) r.posted += c.messages;  // all iterations
  const auto& t = *net->transport;
  r.slots = t.flow_count();
  r.qps = t.qp_count();
  r.peak_in_flight = watch.peak_in_flight;
  r.peak_slots = watch.peak_slots;
  r.reused = t.retired().flows;
  r.retransmitted = t.retired().retransmitted_packets;
  for (uint32_t q = 0; q < t.qp_count(); ++q) r.retransmitted += t.qp(q).retransmitted_packets;
  return r;
}

void check_same(const Run& a, const Run& b) {
  REQUIRE(a.results.size() == b.results.size());
  for (size_t i = 0; i < a.results.size(); ++i) {
    CHECK(a.results[i].time == b.results[i].time);
    CHECK(a.results[i].end == b.results[i].end);
    CHECK(a.results[i].wire_bytes == b.results[i].wire_bytes);
    CHECK(a.results[i].rank_data_received == b.results[i].rank_data_received);
  }
  CHECK(a.retransmitted == b.retransmitted);
}

}  // namespace

TEST_CASE("collective messages reuse finished flow and QP slots",
          "[mechanism][collectives][transport]") {
  const scen::Json j = scenario({{"op", "all_reduce"},
                                 {"algorithm", "ring"},
                                 {"min", "64KiB"},
                                 {"max", "4MiB"},
                                 {"factor", 4},
                                 {"channels", 2},
                                 {"chunk", "64KiB"}},
                                0.0);
  const Run with = run(j, true);
  const Run without = run(j, false);
  INFO("posted " << with.posted << " slots " << with.slots << " peak in flight "
                 << with.peak_in_flight << " qps " << with.qps);
  // Without reuse every message keeps its slot: the count is the messages posted.
  CHECK(without.slots == without.posted);
  // With reuse the slots follow the messages in flight: a finished message's slot is free
  // once its last ACK has been consumed, which is after its successors were posted, so at
  // most twice the messages in flight (plus one per size boundary) are ever held.
  CHECK(with.slots == with.peak_slots);
  CHECK(with.slots <= 2 * with.peak_in_flight + with.results.size());
  CHECK(with.slots * 10 < with.posted);
  CHECK(with.reused + with.slots == with.posted);
  // And the results are those of fresh ids.
  check_same(with, without);
}

TEST_CASE("slot reuse keeps every figure on a lossy fabric",
          "[mechanism][collectives][transport]") {
  // All-to-all over links that lose 5 % of packets: go-back-N rewinds, duplicates and late
  // ACKs of finished messages; slots are reused all the same and every figure is that of
  // fresh ids. (That a slot waits for its late packets is checked directly below.)
  const scen::Json j = scenario({{"op", "all_to_all"},
                                 {"algorithm", "direct"},
                                 {"min", "64KiB"},
                                 {"max", "1MiB"},
                                 {"factor", 2},
                                 {"chunk", "16KiB"}},
                                0.05);
  const Run with = run(j, true);
  const Run without = run(j, false);
  INFO("posted " << with.posted << " slots " << with.slots << " retransmitted "
                 << with.retransmitted);
  CHECK(with.retransmitted > 0);
  CHECK(with.reused > 0);
  check_same(with, without);
}

TEST_CASE("a split run's partitions reuse the slots of the messages they finished",
          "[mechanism][collectives][transport][split]") {
  // Each partition keeps the slots its senders finished and hands them to its senders' next
  // messages (per-QP packet counts atomic): on 2 threads, over lossy links (late ACKs and
  // duplicates of finished messages), slots are reused and every figure is the one-list run's.
  const scen::Json j = scenario({{"op", "all_reduce"},
                                 {"algorithm", "ring"},
                                 {"min", "64KiB"},
                                 {"max", "1MiB"},
                                 {"factor", 4},
                                 {"channels", 2},
                                 {"chunk", "16KiB"}},
                                0.05);
  const Run one = run(j, true);
  const Run split = run(j, true, 2);
  INFO("posted " << split.posted << " slots " << split.slots << " reused " << split.reused
                 << "; one list: slots " << one.slots << " reused " << one.reused);
  CHECK(one.retransmitted > 0);
  CHECK(split.reused > 0);
  CHECK(split.slots * 5 < split.posted);
  CHECK(split.reused + split.slots == split.posted);
  check_same(one, split);
  // And with ids never reused, split or not.
  check_same(run(j, false), run(j, false, 2));
}

namespace {

// A transport without NICs: messages are finished by hand.
struct Bare {
  sim::Simulator sim{1};
  models::PacketPool pool;
  models::Context ctx{sim, pool};
  models::NicParams nic;
  models::Transport transport{ctx, nic};

  uint32_t post() {
    models::FlowSpec f;
    f.src_host = 0;
    f.dst_host = 1;
    f.bytes = 3 * nic.mtu;
    f.qps = 2;
    return transport.add_flow(f, 0, 1000, /*recycle=*/true);
  }
  void finish(uint32_t flow) {
    const models::FlowState& f = transport.flow(flow);
    for (uint32_t k = 0; k < f.qp_count; ++k) {
      models::QueuePair& q = transport.qp(f.first_qp + k);
      q.done = true;
      q.delivered_bytes = static_cast<uint64_t>(q.bytes);
      transport.on_qp_complete(q);
    }
  }
};

}  // namespace

TEST_CASE("a finished message's slot waits for its last packet and its NIC's round-robin",
          "[mechanism][collectives][transport]") {
  Bare b;
  const uint32_t first = b.post();
  const uint32_t qp = b.transport.flow(first).first_qp;
  // A late ACK of the first message is still in the network when it finishes.
  const models::PacketHandle late = b.pool.alloc();
  b.pool[late].qp = qp + 1;
  b.pool.count_qp_packet(b.pool[late]);
  b.finish(first);
  CHECK(b.transport.flows_retired() == 1);
  const uint32_t second = b.post();
  CHECK(second != first);  // not while the packet lives
  b.pool.release(late);
  // Still in its NIC's send round-robin (dropped from it lazily, when its turn comes).
  b.transport.qp(qp).in_active_list = true;
  const uint32_t third = b.post();
  CHECK(third != first);
  b.transport.qp(qp).in_active_list = false;
  const uint32_t fourth = b.post();
  CHECK(fourth == first);  // nothing refers to it any more: reused, with fresh QPs
  CHECK(b.transport.flow(fourth).first_qp == qp);
  CHECK(b.transport.qp(qp).flow == fourth);
  CHECK_FALSE(b.transport.qp(qp).done);
  CHECK(b.transport.flow_count() == 3);
  CHECK(b.transport.retired().flows == 1);
  CHECK(b.transport.flows_done() == 0);
}

TEST_CASE("QP ids are never reused when something keeps state by id",
          "[mechanism][collectives][transport]") {
  Bare b;
  b.transport.keep_qp_ids();  // as DCQCN does
  const uint32_t first = b.post();
  b.finish(first);
  CHECK(b.post() != first);
  CHECK(b.transport.retired().flows == 0);
}

TEST_CASE("InfiniBand congestion control keeps QP ids (its CCTI lives by id)",
          "[mechanism][collectives][transport][ibcc]") {
  scen::Json j = scenario(
      {{"op", "all_reduce"}, {"algorithm", "ring"}, {"size", "1MiB"}, {"chunk", "64KiB"}}, 0.0);
  j["fabric"] = "infiniband";
  const Run plain = run(j, true);
  CHECK(plain.reused > 0);
  j["infiniband"]["cc"] = {{"enabled", true}};
  const Run cc = run(j, true);
  CHECK(cc.reused == 0);
  CHECK(cc.slots == cc.posted);
}
