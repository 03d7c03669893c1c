// Parameters of in-network reduction (SHARP) on an InfiniBand fabric (`infiniband.sharp`), with
// their defaults and why; and the chunk geometry of one all-reduce (how its bytes split into
// chunks and packets, the same at every host and aggregation node).
#pragma once

#include <algorithm>
#include <cstdint>

#include "sim/param_spec_fwd.hpp"
#include "sim/time.hpp"

namespace models {

struct SharpParams {
  // Reduction throughput of an aggregation node, in reduced (output) payload bits per second:
  // the ALU takes one packet from every child and produces one, at this rate. 0 = it keeps up
  // with any link (the design point of streaming aggregation), so B_b is the link rate.
  int64_t reduction_rate_bps = 0;
  // Latency an aggregation node adds each time a chunk passes it (reduction on the way up,
  // replication on the way down). No per-level figure is published; 100 ns, of the order of a
  // switch hop (100-130 ns, docs/references.md "Fabric figures").
  sim::Time latency{100'000};
  // Time the reduction unit spends on each chunk beyond its bytes (0 for InfiniBand SHARP).
  // On an NVSwitch it stands for NCCL's NVLS kernel's per-chunk work: each of its concurrent
  // chunk pipelines (16 channels x head GPUs) synchronises its threads and peers once per
  // chunk, which costs the group this much per chunk of throughput (topologies/gpu_nodes.hpp
  // nvls_chunk_cost_ps; why small chunks are slow: nccl_chunking.hpp).
  sim::Time chunk_cost{0};
  // The reduction grain: a node sends a chunk on once the whole chunk is reduced (or, going
  // down, received). 128 KiB: the low end of NCCL's Simple chunk (docs/references.md
  // "Collectives").
  int64_t chunk_bytes = 131'072;
  // Chunks a host may have outstanding (sent, result not yet back), and so the chunk slots of
  // every aggregation node of the tree: 8, as NCCL_STEPS (docs/references.md "Protocols, chunks,
  // steps").
  int max_outstanding_chunks = 8;
};

// How `bytes` of payload split: chunks of `chunk` bytes (the last one shorter), each sent as
// packets of `mtu` payload (the last one shorter) plus `overhead` header and framing bytes.
struct SharpChunks {
  int64_t bytes = 0;
  int64_t chunk = 1;
  int64_t mtu = 1;
  int64_t overhead = 0;

  int64_t chunks() const { return (bytes + chunk - 1) / chunk; }
  int64_t chunk_bytes(int64_t j) const { return std::min(chunk, bytes - j * chunk); }
  uint32_t packets(int64_t j) const {
    return static_cast<uint32_t>((chunk_bytes(j) + mtu - 1) / mtu);
  }
  uint32_t payload(int64_t j, uint32_t n) const {
    return static_cast<uint32_t>(std::min<int64_t>(mtu, chunk_bytes(j) - int64_t{n} * mtu));
  }
  uint32_t wire(int64_t j, uint32_t n) const {
    return static_cast<uint32_t>(payload(j, n) + overhead);
  }
  // Wire bytes of the whole payload (each host sends this once and receives it once).
  int64_t wire_bytes() const {
    int64_t w = 0;
    for (int64_t j = 0; j < chunks(); ++j) w += chunk_bytes(j) + int64_t{packets(j)} * overhead;
    return w;
  }
};

// The parameters of SharpParams a scenario sets (infiniband.sharp; models/sharp/sharp_params.cpp).
const sim::ParamTable<SharpParams>& sharp_param_table();

}  // namespace models
