// The SHARP parameters a scenario sets (infiniband.sharp), described once (sim/param_spec.hpp).
#include "models/sharp/sharp_params.hpp"

#include "sim/param_spec.hpp"

namespace models {

const sim::ParamTable<SharpParams>& sharp_param_table() {
  using S = SharpParams;
  static const sim::ParamTable<S> t = [] {
    sim::ParamTable<S> f;
    f.push_back(sim::rate_or_zero_param<S>(
        "reduction_rate", &S::reduction_rate_bps,
        "reduced payload an aggregation node produces per second (per tree); 0 = keeps up with "
        "any link"));
    f.push_back(sim::time_param<S>(
        "latency", &S::latency,
        "added by an aggregation node each time a chunk passes it (reduction up, replication "
        "down)"));
    f.push_back(
        sim::bytes_param<S>("chunk", &S::chunk_bytes,
                            "reduction grain: a node passes a chunk on once it has all of it", 1));
    f.push_back(sim::int_param<S>(
        "max_outstanding_chunks", &S::max_outstanding_chunks,
        "chunks a host may have sent whose result is not back yet (= chunk slots per node)", 1,
        65'536));
    return f;
  }();
  return t;
}

}  // namespace models
