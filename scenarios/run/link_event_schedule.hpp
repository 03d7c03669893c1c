// Links going down and up during a run (the scenario's "link_events"). At an event the link
// stops (or resumes) carrying packets in both directions and the routes are recomputed over
// the links then up. The switches at the link's ends install the new tables at once (they see
// their port change); every other switch keeps forwarding by its old tables until
// `convergence_delay` later, as a routing protocol's update takes time to reach it. Packets
// queued for a link that went down are lost on it (counted as link loss).
#pragma once

#include <deque>
#include <vector>

#include "models/network.hpp"
#include "scenarios/loader/scenario.hpp"

namespace scen {

class LinkEventSchedule final : public sim::EventHandler {
 public:
  LinkEventSchedule(const Scenario& s, models::Network& net);
  void start();
  void on_event(uint32_t kind, uint64_t arg) override;
  // Events applied so far, and switches' table installs (both ends + the others' updates).
  size_t applied() const { return applied_; }

 private:
  enum Kind : uint32_t { kLinkEvent = 0, kConverged = 1 };
  void install(size_t version, bool ends_only, const std::vector<int>& ends);

  const Scenario& s_;
  models::Network& net_;
  // Tables after each event (switches hold pointers to them: a deque never moves them).
  std::deque<topo::RoutingTables> versions_;
  std::vector<int> installed_;  // [switch index] version installed; -1 = the initial tables
  size_t applied_ = 0;
};

}  // namespace scen
