// What limits messages below a few KiB on a real RDMA NIC, as parameters calibration fits
// where a trace has such sizes (sizes below --min-size; docs/calibration.md "Small messages"):
//  - inline sends: a message of at most `inline_threshold` bytes travels inside its work
//    request, so the NIC skips the payload's DMA read and the latency drops by a step
//    (perftest's ib_write_lat inlines up to 220 B by default on ConnectX);
//  - the send engine's message rate: small messages are sent no faster than one per
//    `message_gap` whatever their size (ConnectX-6, one QP: ~2.6 M messages/s).
// They are fitted after the large-size parameters, which they leave unchanged: the inline
// threshold lies below the fitted range and the rate cap binds only where a message takes the
// engine less time than the gap.
#pragma once

#include <string>
#include <vector>

#include "scenarios/loader/json_reader.hpp"

namespace calib {

struct ClusterSpec;
struct Experiment;
struct FabricParams;

struct SmallMessageParams {
  double inline_threshold_bytes = 0;  // 0 = no inline sends
  double inline_saving_ns = 0;        // post latency an inline message saves
  double message_gap_ns = 0;          // 1 / the send engine's message rate; 0 = no cap
};

// The fabric.nic keys that stand for them (only those in use: an overlay without small
// messages is what it was before): inline_threshold, inline_saving, max_message_rate.
void add_small_message_keys(scen::Json& nic, const SmallMessageParams& p);
SmallMessageParams read_small_message_keys(const scen::Json& nic);

// "small messages: inline up to 128 B (saves 1745.2 ns), message rate 2.590 M/s" or "".
std::string describe_small_messages(const SmallMessageParams& p);

// Fits `params.small` to the sizes below `min_bytes` with the other parameters held: the
// inline threshold from the largest latency step between consecutive small sizes (a step of
// 20 % or more; wire time alone adds a few % between sizes below 4 KiB), the saving and the
// message gap by the robust fit on those sizes. Appends what it fitted and why to `fitted`
// and `notes`, its simulations to `simulations`. No small sizes: nothing changes.
void fit_small_messages(const ClusterSpec& c, std::vector<Experiment>& experiments,
                        int64_t min_bytes, FabricParams& params, std::vector<std::string>& fitted,
                        std::vector<std::string>& notes, int& simulations);

}  // namespace calib
