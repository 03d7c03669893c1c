#include "scenarios/run/gather_results.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "models/network.hpp"
#include "models/timeline.hpp"
#include "models/timeseries_sampler.hpp"
#include "scenarios/loader/scenario.hpp"
#include "sim/rank_exchange.hpp"
#include "sim/result_archive.hpp"
#include "sim/simulator.hpp"

namespace scen {

namespace {

// The whole fabric's results, in one order: each link direction with what its sending port
// holds (the sender's partition writes a link's counts, though the link delivers in the
// receiver's), then each node's components, then what is kept per QP, per flow or per
// partition. The same walk packs and unpacks.
void walk(const Scenario& s, models::Network& net, models::TimeseriesSampler* sampler,
          models::PartitionLog<models::PauseInterval>* pauses, sim::ResultArchive& a) {
  const topo::Fabric& f = s.fabric;
  auto holds = [&](int node) { return a.holds(net.partition_of(node)); };
  for (size_t i = 0; i < net.links.size(); ++i) {
    const topo::Link& l = f.topo.links[i / 2];
    if (!holds(i % 2 == 0 ? l.a : l.b)) continue;
    net.links[i]->archive_results(a);
    net.link_sender[i]->archive_results(a);
    if (i < net.link_gate.size() && net.link_gate[i] != nullptr) {
      net.link_gate[i]->archive_results(a);
    }
    if (i < net.link_marker.size() && net.link_marker[i] != nullptr) {
      net.link_marker[i]->archive_results(a);
    }
    if (i < net.link_credit_gate.size() && net.link_credit_gate[i] != nullptr) {
      net.link_credit_gate[i]->archive_results(a);
    }
    if (i < net.link_fecn_marker.size() && net.link_fecn_marker[i] != nullptr) {
      net.link_fecn_marker[i]->archive_results(a);
    }
  }
  for (size_t k = 0; k < net.switches.size(); ++k) {
    if (!holds(net.switches[k]->node())) continue;
    net.switches[k]->archive_results(a);
    if (k < net.pfc_ingress.size() && net.pfc_ingress[k] != nullptr) {
      net.pfc_ingress[k]->archive_results(a);
    }
  }
  for (size_t n = 0; n < net.ib_receivers.size(); ++n) {
    if (net.ib_receivers[n] != nullptr && holds(static_cast<int>(n))) {
      net.ib_receivers[n]->archive_results(a);
    }
  }
  for (size_t h = 0; h < net.nics.size(); ++h) {
    if (!holds(f.host_node[h])) continue;
    net.nics[h]->archive_results(a);
    if (net.ib_cc) net.ib_cc->archive_results(static_cast<uint32_t>(h), a);
  }
  for (const auto& storm : net.pause_storms) {
    if (holds(storm->node())) storm->archive_results(a);
  }
  net.transport->archive_results(a);
  if (net.tcp) net.tcp->archive_results(a);
  if (net.sharp) net.sharp->archive_results(a);
  if (net.dcqcn) net.dcqcn->archive_results(a);
  if (net.ack_cc) net.ack_cc->archive_results(a);
  if (sampler != nullptr) {
    std::vector<uint32_t> ports, src, dst;
    for (const auto& ref : s.timeseries.ports) ports.push_back(net.partition_of(ref.node));
    for (uint32_t id : s.timeseries.flows) {
      const models::FlowSpec& spec = net.transport->flow(id).spec;
      src.push_back(net.partition_of(f.host_node[static_cast<size_t>(spec.src_host)]));
      dst.push_back(net.partition_of(f.host_node[static_cast<size_t>(spec.dst_host)]));
    }
    sampler->archive_results(a, ports, src, dst);
  }
  a.partitions(net.pfc_logs);
  a.partitions(net.rate_logs);
  a.partitions(net.credit_logs);
  a.partitions(net.ccti_logs);
  if (pauses != nullptr) a.partitions(*pauses);
}

}  // namespace

bool gather_results(const Scenario& s, sim::Simulator& sim, models::Network& net,
                    models::TimeseriesSampler* sampler, models::TimelineRecorder* timeline,
                    models::PartitionLog<models::PauseInterval>* pauses) {
  sim::RankExchange& ranks = *sim.ranks();
  std::vector<uint32_t> rank_of(sim.partitions());
  for (uint32_t p = 0; p < rank_of.size(); ++p) rank_of[p] = sim.rank_of(p);
  // The fabric's size heads each pack: processes that built different fabrics cannot merge.
  const uint64_t shape[3] = {net.links.size(), net.transport->qp_count(),
                             net.transport->flow_count()};
  std::vector<sim::Bytes> out(ranks.ranks());
  if (ranks.rank() != 0) {
    sim::Bytes& pack = out[0];
    for (uint64_t v : shape) sim::put_bytes(pack, v);
    sim::put_bytes(pack, net.pool.allocated_total());
    sim::put_bytes(pack, net.pool.live());
    sim::ResultArchive a(pack, rank_of, ranks.rank());
    walk(s, net, sampler, pauses, a);
    if (timeline != nullptr) timeline->pack_spans(pack);
  }
  const std::vector<sim::Bytes> in = ranks.exchange(std::move(out));
  if (ranks.rank() != 0) return false;
  for (uint32_t r = 1; r < ranks.ranks(); ++r) {
    sim::ByteReader reader(in[r]);
    for (uint64_t v : shape) {
      if (reader.get<uint64_t>() != v) {
        throw std::logic_error("rank " + std::to_string(r) +
                               " built another fabric than rank 0 (links, QPs, flows differ)");
      }
    }
    const auto made = reader.get<uint64_t>();
    const auto live = reader.get<uint64_t>();
    net.pool.add_elsewhere(made, live);
    sim::ResultArchive a(reader, rank_of, r);
    walk(s, net, sampler, pauses, a);
    if (timeline != nullptr) timeline->merge_spans(reader);
    if (!reader.empty()) {
      throw std::logic_error("rank " + std::to_string(r) +
                             " sent more results than rank 0 reads of its partitions");
    }
  }
  return true;
}

}  // namespace scen
