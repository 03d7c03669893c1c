#include "models/workloads/gpu_endpoints.hpp"

#include "models/transport.hpp"

namespace models {

uint32_t start_p2p_flow(Transport& transport, const GpuEndpoints& endpoints, uint32_t src,
                        uint32_t dst, int64_t bytes, sim::Time now, const char* tag,
                        uint16_t sport) {
  const bool nvlink = endpoints.same_server(src, dst);
  FlowSpec fs;
  fs.src_host = static_cast<int>(nvlink ? endpoints.nvlink[src] : endpoints.nic[src]);
  fs.dst_host = static_cast<int>(nvlink ? endpoints.nvlink[dst] : endpoints.nic[dst]);
  fs.bytes = bytes;
  fs.start = now;
  fs.priority = endpoints.priority;
  fs.dscp = endpoints.dscp;
  fs.tag = tag;
  const uint32_t flow = transport.add_flow(fs, 0, sport, /*recycle=*/true);
  transport.start_flow_in_order(flow);
  return flow;
}

uint32_t start_clear_to_send(Transport& transport, const GpuEndpoints& endpoints, uint32_t receiver,
                             uint32_t sender, sim::Time now, uint16_t sport) {
  return start_p2p_flow(transport, endpoints, receiver, sender, kClearToSendBytes, now,
                        "clear-to-send", sport);
}

}  // namespace models
