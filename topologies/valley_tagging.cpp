#include "topologies/valley_tagging.hpp"

namespace topo {

ValleyRetag make_valley_retag(const Fabric& f, const std::vector<int>& priorities) {
  ValleyRetag r;
  r.level = updown_levels(f);
  r.next.fill(-1);
  for (size_t i = 0; i < priorities.size(); ++i) {
    r.next[priorities[i]] = i + 1 < priorities.size() ? priorities[i + 1] : priorities[i];
  }
  return r;
}

}  // namespace topo
