#include "models/roce/pause_storm.hpp"

#include <algorithm>

#include "models/control_frames.hpp"
#include "models/packet.hpp"

namespace models {

PauseStorm::PauseStorm(Context& ctx, EgressPort& nic_port, int node, const PauseStormParams& params,
                       PartitionLog<PfcEvent>* log)
    : EventHandler(ctx.sim), ctx_(ctx), port_(nic_port), node_(node), params_(params), log_(log) {
  if (params_.interval.ps <= 0) {
    // Half the pause time, as a healthy NIC refreshes XOFF: the class never resumes between.
    const sim::Time pause =
        sim::serialization_time(static_cast<int64_t>(params_.quanta) * 64, port_.rate_bps());
    params_.interval = sim::Time(std::max<int64_t>(1, pause.ps / 2));
  }
}

void PauseStorm::on_event(uint32_t, uint64_t) {
  if (ctx_.sim.now() >= params_.end) return;
  for (uint8_t prio = 0; prio < kPriorities; ++prio) {
    if (((params_.priorities >> prio) & 1u) == 0) continue;
    PacketHandle h{};
    Packet& f = make_pfc_frame(ctx_.pool, h, prio, params_.quanta);
    f.src_host = params_.host;
    ++frames_sent_;
    if (log_ != nullptr)
      log_->local().push_back({ctx_.sim.now(), node_, 0, prio, PfcEvent::Pause, 0});
    port_.send_control(h, f);
  }
  ctx_.sim.after(params_.interval, this, 0);
}

}  // namespace models
