#include "scenarios/run/link_event_schedule.hpp"

#include <algorithm>

#include "scenarios/loader/failures_section.hpp"
#include "scenarios/loader/routing_section.hpp"

namespace scen {

LinkEventSchedule::LinkEventSchedule(const Scenario& s, models::Network& net)
    : EventHandler(net.ctx.sim), s_(s), net_(net), installed_(net.switches.size(), -1) {}

void LinkEventSchedule::start() {
  for (size_t i = 0; i < s_.link_events.size(); ++i) {
    // Boundary events (sim/simulator.hpp): a failure changes links and tables fabric-wide.
    net_.ctx.sim.at_boundary(s_.link_events[i].at, this, kLinkEvent, i);
  }
}

void LinkEventSchedule::on_event(uint32_t kind, uint64_t arg) {
  const auto i = static_cast<size_t>(arg);
  const Scenario::LinkEvent& e = s_.link_events[i];
  std::vector<int> ends;
  for (const int l : e.links) {
    ends.push_back(s_.fabric.topo.links[l].a);
    ends.push_back(s_.fabric.topo.links[l].b);
  }
  if (kind == kConverged) {
    install(i, false, ends);
    return;
  }
  ++applied_;
  for (const int l : e.links) {
    net_.links[2 * static_cast<size_t>(l)]->set_up(e.up);
    net_.links[2 * static_cast<size_t>(l) + 1]->set_up(e.up);
  }
  // Events are in time order, so version i is the state after events 0..i.
  while (versions_.size() <= i) {
    versions_.push_back(routes_for(s_, link_state_after(s_, versions_.size() + 1)));
  }
  install(i, true, ends);
  if (s_.convergence_delay.ps > 0) {
    net_.ctx.sim.after_boundary(s_.convergence_delay, this, kConverged, i);
  } else {
    install(i, false, ends);
  }
}

// A switch never goes back to older tables than it has (a later event's ends may already
// have installed newer ones before this event's update reaches the rest).
void LinkEventSchedule::install(size_t version, bool ends_only, const std::vector<int>& ends) {
  for (size_t k = 0; k < net_.switches.size(); ++k) {
    models::Switch& sw = *net_.switches[k];
    const bool at_end = std::find(ends.begin(), ends.end(), sw.node()) != ends.end();
    if (ends_only && !at_end) continue;
    if (installed_[k] >= static_cast<int>(version)) continue;
    installed_[k] = static_cast<int>(version);
    sw.set_routing(&versions_[version]);
  }
}

}  // namespace scen
