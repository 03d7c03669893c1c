// Everything built for one run: the packet pool, switches, NICs, links and transport. Built
// from topology data by scenarios/ (a model never builds topology).
#pragma once

#include <memory>
#include <vector>

#include "models/cc/ack_rate_control.hpp"
#include "models/context.hpp"
#include "models/ib/credit_gate.hpp"
#include "models/ib/credit_return.hpp"
#include "models/ib/fecn_marker.hpp"
#include "models/ib/ib_cc.hpp"
#include "models/link.hpp"
#include "models/nic.hpp"
#include "models/roce/dcqcn.hpp"
#include "models/roce/deadlock_detector.hpp"
#include "models/roce/ecn_marker.hpp"
#include "models/roce/pause_storm.hpp"
#include "models/roce/pfc_gate.hpp"
#include "models/roce/pfc_ingress.hpp"
#include "models/shared_dma_link.hpp"
#include "models/sharp/sharp_allreduce.hpp"
#include "models/switch.hpp"
#include "models/tcp/tcp_stack.hpp"
#include "models/transport.hpp"
#include "topologies/routing.hpp"

namespace models {

struct Network {
  explicit Network(sim::Simulator& sim) : ctx{sim, pool} {
    pfc_logs.resize(sim.partitions());
    rate_logs.resize(sim.partitions());
    credit_logs.resize(sim.partitions());
    ccti_logs.resize(sim.partitions());
  }
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;

  PacketPool pool;
  Context ctx;
  // [node] the partition of a split run whose event list runs the node's handlers (empty: one
  // list). The builder sets it before building each node's parts (sim/simulator.hpp).
  std::vector<int> node_partition;
  // Handlers built from now on belong to `node`'s partition (or the first: global parts).
  void build_at(int node) { ctx.sim.set_building_partition(partition_of(node)); }
  uint32_t partition_of(int node) const {
    return node < 0 || node_partition.empty() ? 0 : static_cast<uint32_t>(node_partition[node]);
  }
  // Packets put on a wire, all links together (the benchmarks' packet-hops).
  uint64_t packet_hops() const {
    uint64_t n = 0;
    for (const auto& l : links) n += l->stats().packets;
    return n;
  }
  std::vector<std::unique_ptr<Switch>> switches;
  std::vector<std::unique_ptr<Nic>> nics;  // [host number]
  // Two per topology link: links[2i] carries a→b, links[2i+1] carries b→a.
  std::vector<std::unique_ptr<Link>> links;
  std::vector<EgressPort*> link_sender;  // [2i + dir] the port that feeds links[2i + dir]
  std::vector<int> node_switch;          // [node] index into switches, or -1
  std::unique_ptr<Transport> transport;
  topo::RoutingTables routes;
  ExplicitRoutes explicit_routes;
  // PFC, when enabled: one ingress watcher per switch, one gate per sending port.
  std::vector<std::unique_ptr<PfcIngress>> pfc_ingress;  // [switch index]
  std::vector<std::unique_ptr<PfcGate>> pfc_gates;
  std::vector<PfcGate*> link_gate;  // [2i + dir] gate of the port feeding links[2i + dir]
  std::vector<PfcEvent> pfc_log;    // gathered from pfc_logs once the run is over
  // ECN, when enabled: one marker per switch port, [2i + dir] for the port feeding links[2i+dir]
  // (nullptr for NIC ports).
  std::vector<std::unique_ptr<EcnMarker>> ecn_markers;
  std::vector<EcnMarker*> link_marker;
  // DCQCN, when enabled: one controller for every NIC; rate changes of traced QPs.
  std::unique_ptr<Dcqcn> dcqcn;
  std::unique_ptr<AckRateControl> ack_cc;  // fabric.cc: HPCC, DCTCP or TIMELY
  std::unique_ptr<TcpStack> tcp;           // kernel TCP, when some message runs over it
  // PFC deadlock detection, when PFC is on.
  std::unique_ptr<DeadlockDetector> deadlock;
  // Failure injection: NICs that storm pause frames (pause_storms in the scenario).
  std::vector<std::unique_ptr<PauseStorm>> pause_storms;
  std::vector<RateChange> rate_log;  // from rate_logs
  // Credit flow control (InfiniBand's link layer), on every link of an InfiniBand fabric and
  // of the GPU servers' NVLink domains on any fabric: one credit return per node (its receive
  // buffers), one credit gate per sending port ([2i + dir] for the port feeding
  // links[2i + dir]); nullptr where the link has none (a RoCE fabric's links).
  std::vector<bool> nvlink_node;  // [node] a GPU's NVLink endpoint or an NVSwitch
  std::vector<std::unique_ptr<IbCreditReturn>> ib_receivers;  // [node]
  std::vector<std::unique_ptr<IbCreditGate>> ib_gates;
  std::vector<IbCreditGate*> link_credit_gate;
  std::vector<CreditStall> credit_log;  // from credit_logs
  // What handlers append to while the run runs (a log per partition: context.hpp).
  PartitionLog<PfcEvent> pfc_logs;
  PartitionLog<RateChange> rate_logs;
  PartitionLog<CreditStall> credit_logs;
  PartitionLog<CctiChange> ccti_logs;
  // Per-QP state of the fabric's controllers allocated for every QP: the transport calls it as
  // it adds QPs (under its lock in a split run: no partition grows a table another reads).
  void reserve_qps() {
    const size_t n = transport->qp_count();
    if (dcqcn) dcqcn->reserve_qps(n);
    if (ack_cc) ack_cc->reserve_qps(n);
    if (ib_cc) ib_cc->reserve_qps(n);
    if (tcp) tcp->reserve_qps(n);
  }
  // The partitions' logs appended to pfc_log, rate_log and credit_log in partition order (the
  // results sort them by time and place).
  void gather_logs() {
    gather(pfc_logs, pfc_log);
    gather(rate_logs, rate_log);
    gather(credit_logs, credit_log);
    gather(ccti_logs, ccti_log);
  }
  template <class T>
  static void gather(PartitionLog<T>& from, std::vector<T>& to) {
    for (uint32_t p = 0; p < from.size(); ++p) {
      to.insert(to.end(), from[p].begin(), from[p].end());
      from[p].clear();
    }
  }
  std::vector<std::unique_ptr<VlArbiter>> vl_arbiters;  // one per port, with several data VLs
  // InfiniBand congestion control, when enabled: a FECN marker per switch port ([2i + dir],
  // nullptr for NIC ports) and one controller for every NIC; CCTI changes of traced QPs.
  std::vector<std::unique_ptr<FecnMarker>> fecn_markers;
  std::vector<FecnMarker*> link_fecn_marker;
  std::unique_ptr<IbCongestionControl> ib_cc;
  std::vector<CctiChange> ccti_log;  // from ccti_logs
  // In-network reduction (InfiniBand): groups, aggregation trees and the switches' nodes.
  std::unique_ptr<SharpAllReduce> sharp;
  // GPU servers' PCIe links and staging memories the NICs share (build_host_paths.cpp).
  std::vector<std::unique_ptr<SharedDmaLink>> shared_dma;

  // Packets in the network now (queued, on a wire, or being processed).
  uint64_t packets_in_flight() const { return pool.live(); }
};

}  // namespace models
