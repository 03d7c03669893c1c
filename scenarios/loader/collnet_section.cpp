#include "scenarios/loader/collnet_section.hpp"

#include <string>
#include <vector>

#include "scenarios/loader/rail_heads.hpp"

namespace scen {

void read_collnet(JsonReader& r, const topo::Fabric& f, models::CollectiveSpec& s) {
  const bool direct = s.algorithm == models::CollectiveAlgorithm::CollNetDirect;
  if (!direct && s.algorithm != models::CollectiveAlgorithm::CollNetChain) return;
  const std::string name = direct ? "\"collnet_direct\"" : "\"collnet_chain\"";
  std::vector<models::NvlsTreeServer> out;
  std::string why = rail_head_servers(
      f, s, "CollNet joins servers through SHARP; inside one server use nvls or ring", out);
  for (size_t i = 0; why.empty() && i < out.size(); ++i) {
    // NCCL_MAX_DIRECT_ARITY + 1 (src/include/device.h); NCCL disables CollNet beyond.
    if (out[i].ranks.size() > 8) {
      why = "at most 8 ranks on every server (server " + std::to_string(out[i].server) + " has " +
            std::to_string(out[i].ranks.size()) + "; NCCL runs CollNet with up to 8 local GPUs)";
    } else if (i > 0 && out[i].ranks.size() != out[0].ranks.size()) {
      why = "as many ranks on every server";
    }
  }
  if (!why.empty()) throw InputError(r.child_path("algorithm"), name, why);
  if (s.protocol != models::CollectiveProtocol::Simple) {
    throw InputError(r.child_path("protocol"), r.value_text("protocol"),
                     "\"simple\" with algorithm " + name.substr(1, name.size() - 2) +
                         " (NCCL runs CollNet with Simple only; the switches reduce the data)");
  }
  s.collnet_available = true;
  s.collnet_servers = std::move(out);
}

}  // namespace scen
