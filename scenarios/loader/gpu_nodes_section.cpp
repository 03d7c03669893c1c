#include "scenarios/loader/gpu_nodes_section.hpp"

namespace scen {
namespace {

using topo::GpuNodeParams;

Field<GpuNodeParams> rate(std::string key, int64_t GpuNodeParams::*m, std::string meaning) {
  return {key, "rate", std::move(meaning),
          [key, m](JsonReader& r, GpuNodeParams& p) { p.*m = r.rate_bps(key, p.*m); },
          [m](const GpuNodeParams& p) { return Json(sim::format_rate(p.*m)); }};
}

Field<GpuNodeParams> latency(std::string key, int64_t GpuNodeParams::*m, std::string meaning) {
  return {key, "time", std::move(meaning),
          [key, m](JsonReader& r, GpuNodeParams& p) {
            p.*m = r.time(key, sim::Time(p.*m), sim::Time(1)).ps;
          },
          [m](const GpuNodeParams& p) { return Json(sim::format_time(sim::Time(p.*m))); }};
}

}  // namespace

const FieldTable<GpuNodeParams>& gpu_node_fields() {
  static const FieldTable<GpuNodeParams> table = {
      int_field<GpuNodeParams>("gpus", &GpuNodeParams::gpus, "GPUs per server", 1, 1024),
      int_field<GpuNodeParams>("nics", &GpuNodeParams::nics,
                               "network NICs (rails) per server; GPU g uses NICs g, g+gpus, ... "
                               "(or NIC g*nics/gpus when there are fewer NICs than GPUs)",
                               1, 64),
      rate("nic_rate", &GpuNodeParams::nic_rate_bps,
           "rate of each NIC (dgx-h100: 400Gbps ConnectX-7, dgx-a100: 200Gbps)"),
      rate("nvlink_rate", &GpuNodeParams::nvlink_rate_bps,
           "NVLink rate of each GPU, each way, to the NVSwitch domain (H100 450 GB/s = "
           "3600Gbps, A100 300 GB/s = 2400Gbps; REFERENCES.md)"),
      latency("nvlink_latency", &GpuNodeParams::nvlink_latency_ps,
              "GPU <-> NVSwitch propagation (assumed; NVLink is 'sub-microsecond' GPU to GPU)"),
      latency("nvswitch_latency", &GpuNodeParams::nvswitch_latency_ps,
              "NVSwitch forwarding latency (assumed, see nvlink_latency)"),
      rate_or_zero_field<GpuNodeParams>(
          "nvls_reduction_rate", &GpuNodeParams::nvls_reduction_rate_bps,
          "NVLS: reduced payload the NVSwitch produces per second for one all-reduce; 0 = no "
          "in-switch reduction (dgx-a100, generic); dgx-h100 2194Gbps, fitted to a real "
          "8 x H100 all_reduce_perf plateau (topologies/gpu_nodes.hpp)"),
      latency("nvls_latency", &GpuNodeParams::nvls_latency_ps,
              "NVLS: added by the NVSwitch to each chunk it reduces and multicasts (assumed)"),
  };
  return table;
}

GpuNodesSection read_gpu_nodes(JsonReader& r) {
  r.expect_object();
  GpuNodesSection s;
  s.count = static_cast<int>(r.integer("count", 1, 100000));
  const std::string preset = r.choice("preset", {"dgx-h100", "dgx-a100", "generic"}, "dgx-h100");
  (void)topo::gpu_node_preset(preset, s.params);
  if (preset == "generic") {
    for (const char* key : {"gpus", "nics", "nic_rate", "nvlink_rate"}) {
      if (!r.has(key)) {
        throw InputError(r.child_path(key), "(absent)",
                         "a value: the generic preset sets gpus, nics, nic_rate and nvlink_rate "
                         "from the scenario");
      }
    }
  }
  read_fields(r, gpu_node_fields(), s.params);
  r.finish();
  return s;
}

}  // namespace scen
