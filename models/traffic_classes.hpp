// How many traffic classes a port has: Ethernet's priorities and InfiniBand's data VLs.
#pragma once

namespace models {

constexpr int kPriorities = 8;  // IEEE 802.1Q traffic classes (also the PFC priorities)
// Traffic classes a port may have: the 8 Ethernet priorities, or an InfiniBand port's data VLs
// (up to 15, IBA 7.6.3; VL 15 is the management lane and carries no data). A port holds
// kPriorities classes, more only on an InfiniBand fabric with more than 8 data VLs
// (EgressPort::set_class_count), so Ethernet ports keep their size.
constexpr int kMaxClasses = 16;

}  // namespace models
