// DCQCN's end-host roles (Zhu et al., SIGCOMM 2015; docs/references.md). The switch is the
// congestion point (EcnMarker). The notification point, at the receiver NIC, turns CE-marked
// data into congestion notifications: a CNP per QP at most once per interval, or a flag on the
// ACK. The reaction point, at the sender NIC, keeps a rate limiter per QP — its own alpha,
// current and target rate, timer and byte-counter stages — and drives the QP's `rate_bps`,
// which the NIC's pacing obeys. One controller serves every NIC of a network; state is indexed
// by QP id and allocated on a QP's first notification (a QP never notified costs nothing).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "models/context.hpp"
#include "models/roce/dcqcn_params.hpp"
#include "models/transport.hpp"
#include "sim/stable_vector.hpp"

namespace models {

// One rate change of a traced QP (rates.csv).
struct RateChange {
  sim::Time time;
  uint32_t flow = 0;
  uint32_t qp = 0;
  int64_t rate_bps = 0;
  int64_t target_bps = 0;
  double alpha = 0;
};

struct DcqcnStats {
  uint64_t notifications = 0;  // CNPs or flagged ACKs that reached a reaction point
  uint64_t rate_decreases = 0;
  uint64_t rate_increases = 0;
  uint64_t limiters_released = 0;  // QPs that climbed back to the max rate
  int64_t min_rate_bps = 0;        // lowest rate any limiter set (0 = none ever set)

  DcqcnStats& operator+=(const DcqcnStats& o);  // another partition's
};

class Dcqcn final : public sim::EventHandler {
 public:
  Dcqcn(Context& ctx, const DcqcnParams& params, Transport& transport);

  const DcqcnParams& params() const { return params_; }
  // The partitions' statistics together.
  DcqcnStats stats() const;
  // State for QP ids below `n` allocated now: a split run's partitions then never grow the
  // vectors another one reads (call before the run, once the flows are added).
  void reserve_qps(size_t n);

  // Notification point, CNP mode: a CE-marked data packet of `qp` arrived; true when a CNP is
  // due (none sent for this QP within min_time_between_cnps).
  bool cnp_due(uint32_t qp);

  // Reaction point: a notification for `qp`, whose NIC sends at `line_rate_bps`.
  void on_notification(QueuePair& qp, int64_t line_rate_bps);
  // Reaction point: `bytes` of `qp` went on the wire (the byte counter).
  void on_sent(const QueuePair& qp, int64_t bytes) {
    if (params_.rpg_byte_reset > 0 && qp.id < rp_.size() && rp_[qp.id].active) {
      count_bytes(qp.id, bytes);
    }
  }

  // Rate limiter state of a QP (for samples and tests).
  bool limited(uint32_t qp) const { return qp < rp_.size() && rp_[qp].active; }
  double alpha(uint32_t qp) const { return qp < rp_.size() ? rp_[qp].alpha : 0.0; }
  int64_t target_rate(uint32_t qp) const { return qp < rp_.size() ? rp_[qp].target : 0; }

  // Record every rate change of `qp` into `log`.
  void trace(uint32_t qp, PartitionLog<RateChange>* log);

  void on_event(uint32_t kind, uint64_t arg) override;
  enum Kind : uint32_t { kIncreaseTimer = 0, kDecreaseTimer = 1 };

  // Its results, gathered from the process that ran it (sim/result_archive.hpp).
  void archive_results(sim::ResultArchive& a);

 private:
  struct Rp {
    bool active = false;  // a rate limiter is allocated
    bool notified_in_period = false;
    bool decrease_pending = false;  // a notification waits for the monitor period to end
    bool traced = false;
    double alpha = 0;
    sim::Time alpha_epoch;  // start of the current alpha period
    sim::Time last_decrease;
    int64_t current = 0, target = 0, max_rate = 0;
    uint32_t time_stage = 0, byte_stage = 0;
    int64_t bytes = 0;
    std::unique_ptr<sim::Timer> increase_timer, decrease_timer;
  };
  Rp& state(uint32_t qp);
  void advance_alpha(Rp& s, sim::Time now);
  void decrease(Rp& s, QueuePair& qp);
  void increase(Rp& s, QueuePair& qp, bool by_timer);
  void count_bytes(uint32_t qp, int64_t bytes);
  void release(Rp& s, QueuePair& qp);
  void apply(Rp& s, QueuePair& qp);

  Context& ctx_;
  DcqcnParams params_;
  Transport& transport_;
  double one_minus_g_;
  // By QP id (reserve_qps: the transport makes room as it adds QPs, in a split run under its
  // lock, while partitions read the ones they know of).
  sim::StableVector<Rp, 1024> rp_;
  sim::StableVector<sim::Time, 4096> last_cnp_;  // notification point
  sim::StableVector<uint8_t, 4096> cnp_sent_;    // a CNP was ever sent
  PartitionLog<RateChange>* log_ = nullptr;
  sim::PerPartition<DcqcnStats> stats_;  // the sending or receiving NIC's partition
};

}  // namespace models
