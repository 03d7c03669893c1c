// The lowest rate a rate controller set, over partitions or QPs: 0 means none was ever set, so
// it is the lowest non-zero value (DcqcnStats, CcStats).
#pragma once

#include <cstdint>

namespace models {

inline void keep_lowest_rate(int64_t& lowest_bps, int64_t rate_bps) {
  if (rate_bps != 0 && (lowest_bps == 0 || rate_bps < lowest_bps)) lowest_bps = rate_bps;
}

}  // namespace models
