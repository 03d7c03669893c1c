#include "scenarios/loader/host_path_section.hpp"

#include <algorithm>

#include "scenarios/loader/input_error.hpp"

namespace scen {
namespace {

using models::HostPathParams;

// The object form's keys read into `d` (absent keys stay -1).
void read_data(JsonReader& r, topo::HostPathData& d) {
  if (r.has("preset")) {
    const std::string name = r.choice("preset", models::host_path_preset_names(), "");
    HostPathParams p;
    (void)models::host_path_preset(name, p);
    d = {p.doorbell_latency.ps, p.dma_read_latency.ps, p.dma_write_latency.ps, p.pcie_rate_bps};
  }
  if (r.has("doorbell_latency")) d.doorbell_latency_ps = r.time("doorbell_latency").ps;
  if (r.has("dma_read_latency")) d.dma_read_latency_ps = r.time("dma_read_latency").ps;
  if (r.has("dma_write_latency")) d.dma_write_latency_ps = r.time("dma_write_latency").ps;
  if (r.has("pcie_rate")) {
    const Json& v = r.json()["pcie_rate"];
    if ((v.is_number_integer() && v.get<int64_t>() == 0) || (v.is_string() && v == "0")) {
      (void)r.at("pcie_rate");
      d.pcie_rate_bps = 0;
    } else {
      d.pcie_rate_bps = r.rate_bps("pcie_rate");
    }
  }
}

std::vector<int> index_list(JsonReader& r, const char* key, int limit, const char* what) {
  std::vector<int> out;
  auto list = r.get(key);
  if (!list) return out;
  list->expect_array();
  for (size_t i = 0; i < list->size(); ++i) {
    const Json& v = list->json()[i];
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() >= limit) {
      throw InputError(list->index_path(i), message_text(v),
                       std::string("a ") + what + " index from 0 to " + std::to_string(limit - 1));
    }
    out.push_back(v.get<int>());
  }
  return out;
}

}  // namespace

const FieldTable<HostPathParams>& host_path_fields() {
  static const FieldTable<HostPathParams> table = fields_from(models::host_path_param_table());
  return table;
}

void read_gpu_host_paths(JsonReader& r, int servers, topo::GpuNodeParams& p) {
  if (r.has("host_path")) {
    if (r.json()["host_path"].is_string()) {
      const std::string name = r.choice("host_path", models::host_path_preset_names(), "none");
      HostPathParams h;
      (void)models::host_path_preset(name, h);
      p.host_path = {h.doorbell_latency.ps, h.dma_read_latency.ps, h.dma_write_latency.ps,
                     h.pcie_rate_bps};
    } else {
      JsonReader h = r.at("host_path");
      h.expect_object();
      read_data(h, p.host_path);
      h.finish();
    }
  }
  if (auto list = r.get("host_path_overrides")) {
    list->expect_array();
    for (size_t i = 0; i < list->size(); ++i) {
      JsonReader o = list->element(i);
      o.expect_object();
      topo::HostPathOverride ov;
      ov.servers = index_list(o, "servers", servers, "server");
      ov.rails = index_list(o, "rails", p.nics, "rail (NIC of the server)");
      read_data(o, ov.path);
      o.finish();
      p.host_path_overrides.push_back(std::move(ov));
    }
  }
}

HostPathParams apply_host_path(HostPathParams base, const topo::HostPathData& d) {
  if (d.doorbell_latency_ps >= 0) base.doorbell_latency = sim::Time(d.doorbell_latency_ps);
  if (d.dma_read_latency_ps >= 0) base.dma_read_latency = sim::Time(d.dma_read_latency_ps);
  if (d.dma_write_latency_ps >= 0) base.dma_write_latency = sim::Time(d.dma_write_latency_ps);
  if (d.pcie_rate_bps >= 0) base.pcie_rate_bps = d.pcie_rate_bps;
  return base;
}

HostPathParams gpu_nic_host_path(const HostPathParams& fabric_default, const topo::GpuNodeParams& p,
                                 int server, int rail) {
  HostPathParams h = apply_host_path(fabric_default, p.host_path);
  auto has = [](const std::vector<int>& v, int x) {
    return v.empty() || std::find(v.begin(), v.end(), x) != v.end();
  };
  for (const auto& o : p.host_path_overrides) {
    if (has(o.servers, server) && has(o.rails, rail)) h = apply_host_path(h, o.path);
  }
  return h;
}

}  // namespace scen
