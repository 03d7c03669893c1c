// A split run over several processes (Simulator::set_ranks, ARCHITECTURE.md "Runs over
// processes"): which partitions this process runs, and what passes between processes between
// two windows.
#include <algorithm>
#include <array>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/simulator.hpp"
#include "sim/simulator_split.hpp"

namespace sim {

void Simulator::set_ranks(RankExchange& exchange, std::vector<uint32_t> rank_of) {
  if (split_ == nullptr || rank_of.size() != split_->lanes.size()) {
    throw std::invalid_argument("set_ranks: a rank for each of the " +
                                std::to_string(partitions()) + " partitions of a split run, got " +
                                std::to_string(rank_of.size()));
  }
  std::vector<uint32_t> local;
  std::vector<bool> held(exchange.ranks(), false);
  for (uint32_t p = 0; p < rank_of.size(); ++p) {
    if (rank_of[p] >= exchange.ranks()) {
      throw std::invalid_argument("set_ranks: partition " + std::to_string(p) + " on rank " +
                                  std::to_string(rank_of[p]) + " of " +
                                  std::to_string(exchange.ranks()));
    }
    held[rank_of[p]] = true;
    if (rank_of[p] == exchange.rank()) local.push_back(p);
  }
  for (uint32_t r = 0; r < held.size(); ++r) {
    if (!held[r]) {
      throw std::invalid_argument("set_ranks: rank " + std::to_string(r) + " holds no partition (" +
                                  std::to_string(rank_of.size()) + " partitions, " +
                                  std::to_string(exchange.ranks()) + " ranks)");
    }
  }
  for (uint32_t p = 0; p < split_->lanes.size(); ++p) {
    if (list(p).scheduled_total() != 0) {
      throw std::logic_error("set_ranks after events were pushed: right after split");
    }
  }
  check_threads(threads_, local.size());
  split_->ranks = &exchange;
  split_->rank_of = std::move(rank_of);
  split_->local = std::move(local);
}

RankExchange* Simulator::ranks() const {
  return split_ == nullptr ? nullptr : split_->ranks;
}

bool Simulator::is_local(uint32_t partition) const {
  return split_ == nullptr || split_->ranks == nullptr ||
         split_->rank_of[partition] == split_->ranks->rank();
}

uint32_t Simulator::rank_of(uint32_t partition) const {
  return split_ == nullptr || split_->ranks == nullptr ? 0 : split_->rank_of[partition];
}

// Ships an event for another process's handler: its place, its handler's number and kind,
// then what the handler packs for its arg.
void Simulator::pack_message(const Message& m, Bytes& out) const {
  if (!m.target->numbered()) {
    throw std::logic_error("an event of a handler acting for handler " +
                           std::to_string(m.target->origin()) +
                           " (a timer) crosses processes: only numbered handlers' events can");
  }
  const size_t start = out.size();
  put_bytes(out, m.place);
  put_bytes(out, m.target->origin());
  put_bytes(out, m.kind);
  try {
    m.target->pack_event(m.kind, m.arg, out);
  } catch (...) {
    out.resize(start);  // no half message for the other process to misread
    throw;
  }
}

// What another process shipped (pack_message), into the lists of this process's partitions.
void Simulator::unpack_messages(ByteReader& in) {
  while (!in.empty()) {
    const auto place = in.get<Place>();
    const auto number = in.get<uint32_t>();
    const auto kind = in.get<uint32_t>();
    EventHandler* target = scheduler_.handler(number);
    if (!is_local(target->partition())) {
      throw std::logic_error("an event for handler " + std::to_string(number) + " of partition " +
                             std::to_string(target->partition()) +
                             " reached a process that does not run it");
    }
    const uint64_t arg = target->unpack_event(kind, in);
    list(target->partition()).push_at(place, target, kind, arg);
  }
}

// between_windows for a run over processes, on one thread of each while its others wait.
// Every process takes part in the same collectives whatever happened (`failed`: an event of
// its window threw), so that a failure ends every process instead of leaving the others
// waiting. One exchange a window: each process sends every other one, ahead of the events for
// its partitions, what they must agree on — its events counted, a failure, the earliest stop
// asked for, its latest event, its earliest pending event (the events it ships included: due
// where they land) and its RankAgreements' count and time — and each reduces what it received
// with its own; then its RankShares' packs, which every process takes in, in the order of the
// ranks, before it unpacks the events. Then, as between_windows does, the boundary events due
// before every process's next event run, in every process, with the same result (each is the whole
// fabric's and every process built the whole fabric); only then is the earliest event agreed on
// again, and the stops they asked for (and, when a boundary event wrote something to share, a
// window is run at once so that it is swapped).
bool Simulator::between_windows_ranks(bool failed) {
  Split& sp = *split_;
  RankExchange& x = *sp.ranks;
  std::vector<Bytes> events_for(x.ranks());
  Time first = Time::max();
  // The earliest crossing event of this process's partitions: those for its own partitions
  // stay in the outboxes until the next window starts, so every agreement counts them.
  Time inbound = Time::max();
  Time stop_at = Time::max();
  uint64_t events = 0;
  t_running_ = &sp.serial;
  auto note_failure = [&] {
    if (sp.rank_error == nullptr) sp.rank_error = std::current_exception();
    failed = true;
  };
  failed = failed || sp.rank_error != nullptr;  // an arrival it could not take, a window ago
  // This process's shares (RankShare), the same for every other process; packed before its
  // events, whose packets then still count where they are (what a share may look at).
  Bytes shared;
  try {
    for (RankShare* share : shares_) share->pack_share(shared);
  } catch (...) {
    note_failure();
    shared.clear();
  }
  try {
    for (const uint32_t p : sp.local) {
      Lane& lane = sp.lanes[p];
      for (uint32_t to = 0; to < sp.lanes.size(); ++to) {
        if (sp.rank_of[to] == x.rank()) continue;
        std::vector<Message>& box = lane.outbox[sp.set][to];
        for (const Message& m : box) pack_message(m, events_for[sp.rank_of[to]]);
        box.clear();
      }
      inbound = std::min(inbound, lane.outbox_due);  // every crossing, this process's or not
      lane.outbox_due = Time::max();
      if (!lane.boundary_out.empty()) {
        throw std::logic_error("a boundary event for handler " +
                               std::to_string(lane.boundary_out.front().target->origin()) +
                               " asked for by a partition's event, in a run over processes: "
                               "only the process running that partition would run it");
      }
      events += lane.events;
      sp.latest = std::max(sp.latest, lane.latest);
      if (lane.stop_requested) {
        lane.stop_requested = false;
        stop_at = std::min(stop_at, lane.stop_at);
        lane.stop_at = Time::max();
      }
      if (!lane.list->empty()) first = std::min(first, lane.list->top_time());
    }
  } catch (...) {
    note_failure();
  }
  first = std::min(first, inbound);
  sp.set ^= 1;
  // What to agree on: summed [events, failures, agreements' counts...], least [stop, first,
  // -latest, -agreements' latest...].
  const size_t agreements = agreements_.size();
  std::vector<uint64_t> sums{events, failed ? 1u : 0u};
  std::vector<int64_t> mins{stop_at.ps, first.ps, -sp.latest.ps};
  for (const RankAgreement* a : agreements_) {
    sums.push_back(a->local_count());
    mins.push_back(-a->local_latest().ps);
  }
  std::vector<Bytes> out(x.ranks());
  for (uint32_t r = 0; r < x.ranks(); ++r) {
    if (r == x.rank()) continue;
    for (const uint64_t v : sums) put_bytes(out[r], v);
    for (const int64_t v : mins) put_bytes(out[r], v);
    put_bytes(out[r], static_cast<uint64_t>(shared.size()));
    out[r].insert(out[r].end(), shared.begin(), shared.end());
    out[r].insert(out[r].end(), events_for[r].begin(), events_for[r].end());
  }
  const std::vector<Bytes> in = x.exchange(std::move(out));
  std::vector<ByteReader> readers;
  std::vector<std::span<const std::byte>> shares_of(x.ranks());
  shares_of[x.rank()] = shared;
  std::vector<bool> whole(x.ranks(), true);  // its header and shares read
  for (uint32_t r = 0; r < x.ranks(); ++r) {
    readers.emplace_back(in[r]);
    if (r == x.rank()) continue;
    ByteReader& reader = readers.back();
    try {
      for (uint64_t& v : sums) v += reader.get<uint64_t>();
      for (int64_t& v : mins) v = std::min(v, reader.get<int64_t>());
      shares_of[r] = reader.take(reader.get<uint64_t>());
    } catch (...) {  // a header cut short: no agreement can be trusted
      note_failure();
      sums[1] += 1;
      whole[r] = false;
    }
  }
  // Every process's shares, in the order of the ranks, before the events that came with them
  // (a packet of a flow another process added in the window needs that flow).
  if (sums[1] == 0) {
    try {
      for (uint32_t r = 0; r < x.ranks(); ++r) {
        ByteReader reader(shares_of[r]);
        for (RankShare* share : shares_) share->take_share(reader, r);
      }
      for (RankShare* share : shares_) share->shares_taken();
    } catch (...) {
      note_failure();  // told to the others at the next window's exchange, or the run's end
    }
  }
  for (uint32_t r = 0; r < x.ranks(); ++r) {
    if (r == x.rank() || !whole[r]) continue;
    try {
      unpack_messages(readers[r]);
    } catch (...) {
      note_failure();  // told to the others at the next window's exchange, or the run's end
    }
  }
  if (sums[1] > 0) {
    sp.failed_elsewhere = sp.rank_error == nullptr;
    return false;
  }
  if (mins[0] != Time::max().ps) request_stop(Time(mins[0]));
  first = Time(mins[1]);
  sp.latest = Time(-mins[2]);
  for (size_t i = 0; i < agreements; ++i) {
    const Time stop = agreements_[i]->agreed(sums[2 + i], Time(-mins[3 + i]));
    if (stop != Time::max()) request_stop(stop);
  }
  sp.serial.now = sp.latest;
  events_executed_ = sp.base + sums[0] + sp.serial_count;
  if (progress_ != nullptr && events_executed_ >= sp.next_progress) {
    sp.next_progress = events_executed_ + progress_every_;
    try {
      progress_->on_progress();  // a memory guard may throw in one process
    } catch (...) {
      note_failure();
    }
  }
  for (;;) {
    const bool any = first != Time::max();
    const bool boundary = !sp.boundary.empty();
    const Time next_boundary = boundary ? sp.boundary.top_time() : Time::max();
    if (boundary && (!any || next_boundary <= first)) {
      if (next_boundary > bound_) return false;
      sp.serial.now = next_boundary;
      try {
        while (!sp.boundary.empty() && sp.boundary.top_time() == next_boundary) {
          const Event e = sp.boundary.pop();
          ++sp.serial_count;
          e.target->on_event(e.kind, e.arg);
        }
      } catch (...) {
        note_failure();
      }
      events_executed_ = sp.base + sums[0] + sp.serial_count;  // the run may end after them
      sp.latest = std::max(sp.latest, next_boundary);
      // They pushed into this process's lists, and may have asked for a stop: agree again.
      Time local_first = inbound;
      for (const uint32_t p : sp.local) {
        if (!list(p).empty()) local_first = std::min(local_first, list(p).top_time());
      }
      // What they wrote for the other processes goes in a window's exchange: one now.
      for (const RankShare* share : shares_) {
        if (share->share_pending()) local_first = std::min(local_first, next_boundary);
      }
      std::array<int64_t, 3> agreed{local_first.ps, failed ? -1 : 0,
                                    stop_requested_ ? stopped_at_.ps : Time::max().ps};
      x.min_all(agreed);
      if (agreed[1] < 0) {
        sp.failed_elsewhere = sp.rank_error == nullptr;
        return false;
      }
      if (agreed[2] != Time::max().ps) request_stop(Time(agreed[2]));
      first = Time(agreed[0]);
      continue;
    }
    sp.idle = !any && !boundary;
    if (!any || first > bound_) return false;
    sp.window_end = std::min(first + sp.window, next_boundary);
    return true;
  }
}

}  // namespace sim
