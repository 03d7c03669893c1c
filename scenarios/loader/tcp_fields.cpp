// The `fabric.tcp` section: kernel TCP's window, loss recovery and host costs
// (models/tcp/tcp_params.hpp).
#include "models/tcp/tcp_params.hpp"
#include "scenarios/loader/params.hpp"

namespace scen {

using models::TcpParams;

const FieldTable<TcpParams>& tcp_fields() {
  static const FieldTable<TcpParams> t = fields_from(models::tcp_param_table());
  return t;
}

}  // namespace scen
