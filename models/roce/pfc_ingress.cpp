#include "models/roce/pfc_ingress.hpp"

namespace models {

PfcIngress::PfcIngress(Context& ctx, Switch& sw, const PfcParams& params,
                       PartitionLog<PfcEvent>* log) {
  ports_.reserve(sw.port_count());
  for (size_t p = 0; p < sw.port_count(); ++p) {
    ports_.push_back(std::make_unique<Port>(ctx, sw, static_cast<uint16_t>(p),
                                            static_cast<uint32_t>(params.quanta), log));
  }
}

void PfcIngress::on_xoff(uint16_t in_port, uint8_t priority, int64_t held_bytes) {
  ports_[in_port]->sender.xoff(priority, held_bytes);
}

void PfcIngress::on_xon(uint16_t in_port, uint8_t priority, int64_t held_bytes) {
  ports_[in_port]->sender.xon(priority, held_bytes);
}

}  // namespace models
