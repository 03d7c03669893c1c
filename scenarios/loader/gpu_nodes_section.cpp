#include "scenarios/loader/gpu_nodes_section.hpp"

#include "scenarios/loader/host_path_section.hpp"
#include "scenarios/loader/input_error.hpp"
#include "topologies/topology.hpp"

namespace scen {
namespace {

using topo::GpuNodeParams;

// Described here, not beside the struct: topologies/ is pure data and knows nothing of sim/.
const sim::ParamTable<GpuNodeParams>& gpu_node_param_table() {
  using S = GpuNodeParams;
  static const sim::ParamTable<S> table = {
      sim::int_param<S>("gpus", &S::gpus, "GPUs per server", 1, 1024),
      sim::int_param<S>("nics", &S::nics,
                        "network NICs (rails) per server; GPU g uses NICs g, g+gpus, ... "
                        "(or NIC g*nics/gpus when there are fewer NICs than GPUs)",
                        1, 1024),
      sim::rate_param<S>("nic_rate", &S::nic_rate_bps,
                         "rate of each NIC (dgx-h100: 400Gbps ConnectX-7, dgx-a100: 200Gbps)"),
      sim::rate_param<S>(
          "nvlink_rate", &S::nvlink_rate_bps,
          "NVLink rate of each GPU, each way, to the NVSwitch domain (H100 450 GB/s = "
          "3600Gbps, A100 300 GB/s = 2400Gbps; docs/references.md)"),
      sim::time_param<S>(
          "nvlink_latency", &S::nvlink_latency_ps,
          "GPU <-> NVSwitch propagation (assumed; NVLink is 'sub-microsecond' GPU to GPU)",
          sim::Time(1)),
      sim::time_param<S>("nvswitch_latency", &S::nvswitch_latency_ps,
                         "NVSwitch forwarding latency (assumed, see nvlink_latency)", sim::Time(1)),
      sim::custom_param<S>(
          "nvlink_buffer", "bytes or auto", &S::nvlink_buffer_bytes,
          "NVLink credit buffer per port and class, at the NVSwitch and the GPUs; "
          "auto = 1.25 x the NVLink credit loop at nvlink_rate plus two frames (NVLink is "
          "lossless by credits on every fabric; no published size)"),
      sim::rate_or_zero_param<S>(
          "nvls_reduction_rate", &S::nvls_reduction_rate_bps,
          "NVLS: reduced payload the NVSwitch produces per second for one all-reduce; 0 = no "
          "in-switch reduction (dgx-a100, generic); dgx-h100 2486Gbps, fitted to a real "
          "8 x H100 all_reduce_perf plateau (topologies/gpu_nodes.hpp)"),
      sim::time_param<S>(
          "nvls_latency", &S::nvls_latency_ps,
          "NVLS: added by the NVSwitch to each chunk it reduces and multicasts (assumed)",
          sim::Time(1)),
      sim::time_param<S>(
          "nvls_chunk_cost", &S::nvls_chunk_cost_ps,
          "NVLS: throughput cost of each chunk reduced, beyond its bytes (NCCL's kernel "
          "synchronises per chunk; dgx-h100 59ns, fitted with nvls_reduction_rate)",
          sim::Time(0)),
      sim::rate_or_zero_param<S>(
          "gpu_pcie_rate", &S::gpu_pcie_rate_bps,
          "payload rate of each GPU's own PCIe link, per direction, which the NICs' DMA of its "
          "memory crosses (0 = not modelled; dgx-h100 Gen5 x16 460Gbps, dgx-a100 Gen4 x16 "
          "230Gbps)"),
      sim::bool_param<S>("gpudirect_rdma", &S::gpudirect_rdma,
                         "NICs read and write GPU memory directly; false: staged through "
                         "host memory (each byte crosses it twice)"),
      sim::rate_or_zero_param<S>(
          "host_memory_rate", &S::host_memory_rate_bps,
          "host memory bandwidth a server's staged transfers share with gpudirect_rdma false "
          "(0 = unlimited; dgx-h100 4915.2Gbps, dgx-a100 3276.8Gbps)"),
  };
  return table;
}

}  // namespace

const FieldTable<GpuNodeParams>& gpu_node_fields() {
  // nvlink_buffer: bytes, or "auto" (stored as 0: derived when the network is built).
  static const FieldTable<GpuNodeParams> table = fields_from(
      gpu_node_param_table(),
      {Field<GpuNodeParams>{"nvlink_buffer", "", "",
                            [](JsonReader& r, GpuNodeParams& p) {
                              if (!r.has("nvlink_buffer")) return;
                              if (r.json()["nvlink_buffer"] == "auto") {
                                (void)r.at("nvlink_buffer");  // mark as read
                                p.nvlink_buffer_bytes = 0;
                                return;
                              }
                              p.nvlink_buffer_bytes = r.bytes("nvlink_buffer", 1);
                            },
                            [](const GpuNodeParams& p) {
                              return p.nvlink_buffer_bytes == 0
                                         ? Json("auto")
                                         : Json(sim::format_bytes(p.nvlink_buffer_bytes));
                            }}});
  return table;
}

namespace {

// The preset, then single keys, then the NICs' PCIe path; `count` servers.
void read_gpu_params(JsonReader& r, int count, GpuNodeParams& p);

}  // namespace

GpuNodesSection read_gpu_nodes(JsonReader& r) {
  r.expect_object();
  GpuNodesSection s;
  s.count = static_cast<int>(r.integer("count", 1, 100000));
  read_gpu_params(r, s.count, s.params);
  r.finish();
  return s;
}

void read_inline_gpu_servers(JsonReader& r, topo::Topology& t,
                             const std::function<int(JsonReader&, size_t)>& nic_node) {
  r.expect_object();
  JsonReader list = r.at("servers");
  list.expect_array();
  if (list.size() == 0) throw InputError(list.path(), "[]", "at least one server");
  GpuNodeParams p;
  read_gpu_params(r, static_cast<int>(list.size()), p);
  std::vector<std::vector<int>> nics(list.size());
  std::vector<bool> used(t.nodes.size(), false);
  for (size_t s = 0; s < list.size(); ++s) {
    JsonReader server = list.element(s);
    server.expect_array();
    if (static_cast<int>(server.size()) != p.nics) {
      throw InputError(server.path(), message_text(server.json()),
                       std::to_string(p.nics) + " NIC host names (nics), in rail order");
    }
    for (size_t k = 0; k < server.size(); ++k) {
      const int node = nic_node(server, k);
      if (t.nodes[static_cast<size_t>(node)].kind != topo::NodeKind::Host || used[node]) {
        throw InputError(server.index_path(k), message_text(server.json()[k]),
                         "a host of \"nodes\" not already a NIC of a GPU server");
      }
      used[node] = true;
      nics[s].push_back(node);
    }
  }
  r.finish();
  topo::add_gpu_nodes(t, nics, p);
}

Json gpu_servers_to_json(const topo::Topology& t) {
  const topo::GpuCluster& c = t.gpus;
  if (c.empty()) return nullptr;
  Json j = write_fields(gpu_node_fields(), c.params);
  j["preset"] = c.params.preset;
  auto data = [](const topo::HostPathData& d) {
    Json o = Json::object();
    if (d.doorbell_latency_ps >= 0)
      o["doorbell_latency"] = sim::format_time(sim::Time(d.doorbell_latency_ps));
    if (d.dma_read_latency_ps >= 0)
      o["dma_read_latency"] = sim::format_time(sim::Time(d.dma_read_latency_ps));
    if (d.dma_write_latency_ps >= 0)
      o["dma_write_latency"] = sim::format_time(sim::Time(d.dma_write_latency_ps));
    if (d.pcie_rate_bps == 0) o["pcie_rate"] = 0;
    if (d.pcie_rate_bps > 0) o["pcie_rate"] = sim::format_rate(d.pcie_rate_bps);
    return o;
  };
  const Json host = data(c.params.host_path);
  if (!host.empty()) j["host_path"] = host;
  for (const auto& o : c.params.host_path_overrides) {
    Json e = data(o.path);
    if (!o.servers.empty()) e["servers"] = o.servers;
    if (!o.rails.empty()) e["rails"] = o.rails;
    j["host_path_overrides"].push_back(std::move(e));
  }
  Json servers = Json::array();
  for (const auto& nics : c.server_nics) {
    Json names = Json::array();
    for (int n : nics) names.push_back(t.nodes[static_cast<size_t>(n)].name);
    servers.push_back(std::move(names));
  }
  j["servers"] = std::move(servers);
  return j;
}

namespace {

void read_gpu_params(JsonReader& r, int count, GpuNodeParams& p) {
  GpuNodesSection s;
  const std::string preset = r.choice("preset", topo::gpu_node_preset_names(), "dgx-h100");
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
  read_gpu_host_paths(r, count, s.params);
  p = s.params;
}

}  // namespace

}  // namespace scen
