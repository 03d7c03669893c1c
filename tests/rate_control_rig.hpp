// A bench for a per-QP rate controller (DCQCN, InfiniBand congestion control): one long flow's
// QP in a transport without NICs, posted at line rate, so a controller's rate changes are only
// recorded and can be checked against hand-computed values at exact times.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>

#include "scenario_helpers.hpp"

namespace test_support {

template <typename Controller>
struct RateControlRig {
  struct Noop final : sim::EventHandler {
    using EventHandler::EventHandler;
    void on_event(uint32_t, uint64_t) override {}
  };
  sim::Simulator sim{1};
  Noop noop{sim};
  models::PacketPool pool;
  models::Context ctx{sim, pool};
  models::NicParams nic;
  models::Transport transport{ctx, nic};
  std::unique_ptr<Controller> controller;

  // `args` follow the transport in the controller's constructor.
  template <typename Params, typename... Args>
  RateControlRig(int64_t line_bps, const Params& params, Args&&... args) {
    models::FlowSpec f;
    f.src_host = 0;
    f.dst_host = 1;
    f.bytes = 1'000'000'000;
    transport.add_flow(f, 0, 1000);
    qp().rate_bps = line_bps;
    qp().posted = true;
    controller = std::make_unique<Controller>(ctx, params, transport, std::forward<Args>(args)...);
  }
  models::QueuePair& qp() { return transport.qp(0); }
  // Runs the simulation to exactly `t` (an empty event list would leave the clock behind).
  void run_to(sim::Time t) {
    sim.at(t, &noop, 0);
    sim.run(t);
  }
};

}  // namespace test_support
