#include "scenarios/builder/build_nvlink.hpp"

#include <array>

#include "scenarios/builder/credit_domain.hpp"
#include "scenarios/loader/input_error.hpp"
#include "sim/units.hpp"

namespace scen {

std::vector<bool> nvlink_domain(const topo::Fabric& f) {
  std::vector<bool> in(f.topo.nodes.size(), false);
  for (int n : f.topo.gpus.nvswitch_node) in[n] = true;
  for (int n : f.topo.gpus.nvlink_node) in[n] = true;
  return in;
}

int nvlink_classes(const Scenario& s) {
  return s.fabric_kind == FabricKind::Infiniband ? s.ib.data_vls : models::kPriorities;
}

namespace {

// NVLink's credit parameters: InfiniBand's flow-control timing (an update per 40 ns at most,
// a refresh each 10 us; models/ib/ib_params.hpp), NVLink's buffers and classes.
models::IbParams nvlink_credit_params(const Scenario& s) {
  models::IbParams p;
  p.data_vls = nvlink_classes(s);
  p.vl_buffer_bytes = nvlink_buffer_bytes(s);
  return p;
}

}  // namespace

int64_t nvlink_buffer_bytes(const Scenario& s) {
  const topo::GpuNodeParams& g = s.fabric.topo.gpus.params;
  const int64_t frame = s.nic.mtu + s.nic.header_bytes + s.nic.framing_bytes;
  if (g.nvlink_buffer_bytes > 0) {
    if (g.nvlink_buffer_bytes < frame) {
      throw InputError("topology.nodes.nvlink_buffer", sim::format_bytes(g.nvlink_buffer_bytes),
                       "at least one frame (" + std::to_string(frame) +
                           " bytes: fabric.nic mtu + headers + framing), or \"auto\"");
    }
    return g.nvlink_buffer_bytes;
  }
  const models::IbParams timing;
  const sim::Time loop =
      sim::Time(2 * g.nvlink_latency_ps + g.nvswitch_latency_ps) + timing.fc_min_interval;
  const auto in_flight = static_cast<int64_t>(static_cast<__int128>(g.nvlink_rate_bps) * loop.ps /
                                              (8 * int64_t{1'000'000'000'000}));
  // A quarter more for what lengthens the loop now and then: packets the NVSwitch holds until
  // every GPU's share of an NVLS chunk is in, several ports' updates on one link.
  const int64_t bytes = in_flight + in_flight / 4 + 2 * frame;
  return (bytes + 1023) / 1024 * 1024;
}

models::SwitchParams nvswitch_params(const Scenario& s, size_t ports) {
  models::SwitchParams sp;
  sp.latency = sim::Time(s.fabric.topo.gpus.params.nvswitch_latency_ps);
  sp.forwarding = models::Forwarding::CutThrough;
  sp.buffer = credit_switch_buffer(ports, nvlink_classes(s), nvlink_buffer_bytes(s));
  sp.adaptive_routing = false;
  return sp;
}

void wire_nvlink(const Scenario& s, models::Network& net) {
  const topo::Fabric& f = s.fabric;
  if (f.topo.gpus.empty()) return;
  // A packet's class is its SL's VL on InfiniBand (as on the fabric), its priority elsewhere.
  std::array<uint8_t, 16> class_of{};
  for (size_t c = 0; c < class_of.size(); ++c) {
    class_of[c] = s.fabric_kind == FabricKind::Infiniband
                      ? s.ib.vl_of(static_cast<uint8_t>(c))
                      : static_cast<uint8_t>(c % models::kPriorities);
  }
  wire_credit_domain(f, net, net.nvlink_node, nvlink_credit_params(s), class_of, nullptr);
}

}  // namespace scen
