#include "scenarios/run/flow_results.hpp"

#include <stdexcept>
#include <string>

#include "models/ideal_fct.hpp"
#include "scenarios/builder/build_network.hpp"

namespace scen {

TransportTotals collect_flow_results(const Scenario& s, const models::Network& net,
                                     RunOutcome& out) {
  const topo::Fabric& f = s.fabric;
  const models::Transport& tr = *net.transport;
  // Messages whose slots were reused (collectives) count as they would have.
  TransportTotals t;
  t.retransmitted = tr.retired().retransmitted_packets;
  t.timeouts = tr.retired().timeouts;
  t.nacks = tr.retired().nacks_received;
  t.duplicates = tr.retired().duplicate_packets;
  for (uint32_t i = 0; i < tr.flow_count(); ++i) {
    const models::FlowState& fl = tr.flow(i);
    if (fl.spec.src_host < 0) continue;  // a spare slot of a run over processes: no flow
    // A workload's message whose slot is reused once it ends (a collective's, reported in
    // collectives.csv; a pipeline transfer's or a Chakra send's, in the training and Chakra
    // results) is not a flow of flows.csv: which of them still hold a slot at the end depends
    // on what reused the others (and in a split run on the threads' order).
    const bool collective = fl.spec.tag == "collective" || fl.recycle;
    FlowResult r;
    r.id = i;
    r.tag = fl.spec.tag;
    r.src = f.topo.nodes[f.host_node[fl.spec.src_host]].name;
    r.dst = f.topo.nodes[f.host_node[fl.spec.dst_host]].name;
    r.bytes = fl.spec.bytes;
    r.priority = fl.spec.priority;
    r.qps = static_cast<int>(fl.qp_count);
    r.start = fl.spec.start;
    r.completed = fl.done;
    if (fl.done) {
      r.finish = fl.finish;
      r.fct = fl.finish - fl.spec.start;
    }
    uint64_t delivered = 0;
    for (uint32_t k = 0; k < fl.qp_count; ++k) {
      const models::QueuePair& qp = tr.qp(fl.first_qp + k);
      r.retransmitted_packets += qp.retransmitted_packets;
      r.timeouts += qp.timeouts;
      t.nacks += qp.nacks_received;
      t.duplicates += qp.duplicate_packets;
      delivered += qp.delivered_bytes;
    }
    // Conservation of bytes: a completed message was delivered exactly once, in order.
    if (fl.done && delivered != static_cast<uint64_t>(fl.spec.bytes)) {
      throw std::logic_error("flow " + std::to_string(i) + " completed with " +
                             std::to_string(delivered) + " of " + std::to_string(fl.spec.bytes) +
                             " bytes delivered");
    }
    t.retransmitted += r.retransmitted_packets;
    t.timeouts += r.timeouts;
    if (collective) continue;
    const models::QueuePair& q0 = tr.qp(fl.first_qp);
    const auto data = trace_path(s, net, q0.src_host, q0.dst_host, q0.udp_sport, q0.route_id);
    const auto ack = trace_path(s, net, q0.dst_host, q0.src_host, q0.udp_sport, 0);
    if (!data.empty() && !ack.empty()) {
      // A TCP flow's ideal is the network's alone, with TCP's segments: its slowdown includes
      // the hosts' CPU work.
      models::NicParams format = s.nic;
      if (q0.tcp) {
        format.mtu = s.tcp.mss;
        format.header_bytes = s.tcp.header_bytes;
        format.ack_payload_bytes = 0;
      }
      r.ideal_fct =
          models::ideal_fct(data, ack, r.bytes, format, net.nics[q0.src_host]->host_path(),
                            net.nics[q0.dst_host]->host_path());
    }
    out.flows.push_back(std::move(r));
  }
  return t;
}

}  // namespace scen
