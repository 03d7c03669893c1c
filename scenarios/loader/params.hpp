// Field tables of the model parameter structs (see param_table.hpp).
#pragma once

#include "models/cc/cc_params.hpp"
#include "models/nic_params.hpp"
#include "models/roce/dcqcn_params.hpp"
#include "models/roce/ecn_marker.hpp"
#include "models/roce/pfc_params.hpp"
#include "models/switch.hpp"
#include "models/tcp/tcp_params.hpp"
#include "scenarios/loader/param_table.hpp"

namespace scen {

const FieldTable<models::SwitchParams>& switch_fields();  // per switch
const FieldTable<models::SwitchParams>& port_fields();    // per port / priority
const FieldTable<models::NicParams>& nic_fields();
const FieldTable<models::PfcParams>& pfc_fields();
const FieldTable<models::EcnParams>& ecn_fields();
// The keys of an override's "ecn" object (per switch / port / priority): ecn_fields without
// mark_at, which stays fabric-wide.
const FieldTable<models::EcnParams>& ecn_port_fields();
const FieldTable<models::DcqcnParams>& dcqcn_fields();  // dcqcn_fields.cpp
const FieldTable<models::CcParams>& cc_fields();        // cc_fields.cpp
const FieldTable<models::TcpParams>& tcp_fields();      // tcp_fields.cpp

struct LinkDefaults {
  double loss_rate = 0.0;
};
const FieldTable<LinkDefaults>& link_fields();

}  // namespace scen
