// Keys and meanings as simulation/scratch/third.cc reads them and its models use them
// (rdma-hw.cc, switch-node.cc, switch-mmu.cc, qbb-net-device.cc of the ns-3 HPCC simulator).
#include "scenarios/import/hpcc_config.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <deque>
#include <set>

#include "scenarios/import/ns3_quantity.hpp"
#include "scenarios/import/peer_text.hpp"
#include "scenarios/loader/input_error.hpp"
#include "sim/units.hpp"

namespace scen {

const HpccConfigEntry* HpccConfig::find(const std::string& key) const {
  const auto it = keys.find(key);
  return it == keys.end() ? nullptr : &it->second;
}

HpccConfig read_hpcc_config(const std::string& text, const std::string& file) {
  HpccConfig c;
  c.file = file;
  for (const peer::TextLine& l : peer::content_lines(text, /*hash_comments=*/false)) {
    HpccConfigEntry e;
    e.line = l.number;
    e.words.assign(l.words.begin() + 1, l.words.end());
    c.keys[l.words[0]] = std::move(e);
  }
  return c;
}

namespace {

using nlohmann::json;

// The keys third.cc reads, by what rdmasim does with them.
const std::set<std::string> kOutputKeys = {
    "TRACE_FILE",    "TRACE_OUTPUT_FILE", "FCT_OUTPUT_FILE", "PFC_OUTPUT_FILE",
    "QLEN_MON_FILE", "QLEN_MON_START",    "QLEN_MON_END",    "ENABLE_TRACE"};
const std::set<std::string> kKnownKeys = {"ENABLE_QCN",
                                          "USE_DYNAMIC_PFC_THRESHOLD",
                                          "CLAMP_TARGET_RATE",
                                          "PAUSE_TIME",
                                          "DATA_RATE",
                                          "LINK_DELAY",
                                          "PACKET_PAYLOAD_SIZE",
                                          "L2_CHUNK_SIZE",
                                          "L2_ACK_INTERVAL",
                                          "L2_BACK_TO_ZERO",
                                          "TOPOLOGY_FILE",
                                          "FLOW_FILE",
                                          "SIMULATOR_STOP_TIME",
                                          "ALPHA_RESUME_INTERVAL",
                                          "RP_TIMER",
                                          "EWMA_GAIN",
                                          "FAST_RECOVERY_TIMES",
                                          "RATE_AI",
                                          "RATE_HAI",
                                          "ERROR_RATE_PER_LINK",
                                          "CC_MODE",
                                          "RATE_DECREASE_INTERVAL",
                                          "MIN_RATE",
                                          "HAS_WIN",
                                          "GLOBAL_T",
                                          "MI_THRESH",
                                          "VAR_WIN",
                                          "FAST_REACT",
                                          "U_TARGET",
                                          "INT_MULTI",
                                          "RATE_BOUND",
                                          "ACK_HIGH_PRIO",
                                          "DCTCP_RATE_AI",
                                          "LINK_DOWN",
                                          "KMAX_MAP",
                                          "KMIN_MAP",
                                          "PMAX_MAP",
                                          "BUFFER_SIZE",
                                          "MULTI_RATE",
                                          "SAMPLE_FEEDBACK",
                                          "PINT_LOG_BASE",
                                          "PINT_PROB"};

class Reader {
 public:
  explicit Reader(const HpccConfig& c) : c_(c) {}
  const HpccConfigEntry* get(const std::string& key) const { return c_.find(key); }
  std::string path(const HpccConfigEntry& e) const { return peer::where(c_.file, e.line); }
  const std::string& word(const std::string& key, const HpccConfigEntry& e, size_t i) const {
    if (i >= e.words.size()) {
      throw InputError(path(e), key, std::to_string(i + 1) + " value(s) after " + key);
    }
    return e.words[i];
  }
  double number(const std::string& key, double def, double min, double max) const {
    const HpccConfigEntry* e = get(key);
    if (e == nullptr) return def;
    const std::string& w = word(key, *e, 0);
    double v = 0;
    const auto [ptr, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
    if (ec != std::errc() || ptr != w.data() + w.size() || !std::isfinite(v) || v < min ||
        v > max) {
      throw InputError(path(*e), w, key + ": a number in [" + fmt(min) + ", " + fmt(max) + "]");
    }
    return v;
  }
  int64_t integer(const std::string& key, int64_t def, int64_t min, int64_t max) const {
    const HpccConfigEntry* e = get(key);
    if (e == nullptr) return def;
    return peer::parse_integer(
        word(key, *e, 0), min, max, path(*e),
        key + ": an integer in " + std::to_string(min) + ".." + std::to_string(max));
  }
  bool flag(const std::string& key, bool def) const { return integer(key, def ? 1 : 0, 0, 1) != 0; }
  // An ns-3 DataRate ("40Mb/s"), or `def` when absent.
  int64_t rate(const std::string& key, int64_t def) const {
    const HpccConfigEntry* e = get(key);
    if (e == nullptr) return def;
    return sim::parse_rate_bps(peer::ns3_rate_text(word(key, *e, 0), path(*e)));
  }
  // Microseconds as a double (third.cc's MicroSeconds(double)), to the picosecond.
  sim::Time micros(const std::string& key, sim::Time def) const {
    const double us = number(key, static_cast<double>(def.ps) / 1e6, 0.0, 1e9);
    return sim::Time(static_cast<int64_t>(std::llround(us * 1e6)));
  }
  static std::string fmt(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", v);
    return b;
  }

 private:
  const HpccConfig& c_;
};

// A `N rate value ...` map (KMAX_MAP and the like): value per link speed in bits/s.
std::map<int64_t, double> read_rate_map(const Reader& r, const std::string& key) {
  std::map<int64_t, double> m;
  const HpccConfigEntry* e = r.get(key);
  if (e == nullptr) return m;
  const std::string p = r.path(*e);
  const int64_t n = peer::parse_integer(r.word(key, *e, 0), 0, 64, p,
                                        key + ": the number of link speeds (0..64)");
  if (static_cast<int64_t>(e->words.size()) != 1 + 2 * n) {
    throw InputError(p, key, key + ": " + std::to_string(n) + " pairs 'rate_bps value'");
  }
  for (int64_t i = 0; i < n; ++i) {
    const std::string& rw = e->words[static_cast<size_t>(1 + 2 * i)];
    const std::string& vw = e->words[static_cast<size_t>(2 + 2 * i)];
    const int64_t rate = peer::parse_integer(rw, 1, INT64_MAX, p, key + ": a rate in bits/s");
    double v = 0;
    const auto [ptr, ec] = std::from_chars(vw.data(), vw.data() + vw.size(), v);
    if (ec != std::errc() || ptr != vw.data() + vw.size() || !std::isfinite(v) || v < 0 ||
        v > 1e9) {
      throw InputError(p, vw, key + ": a value in [0, 1e9] for " + rw + " bit/s");
    }
    m[rate] = v;
  }
  return m;
}

struct LinkInfo {
  int a = 0, b = 0;  // node indices
  int a_port = 0, b_port = 0;
  int64_t rate_bps = 0;
  sim::Time latency;
};

// The largest host-to-host RTT and BDP as third.cc computes them (maxRtt, maxBdp): a BFS from
// every host over switches; along the BFS path, delay = the links' latencies, txDelay = one
// payload's serialisation per link, bw = the slowest link; rtt = 2 delay + txDelay.
struct PeerRtt {
  sim::Time max_rtt;
  int64_t max_bdp = 0;
};

PeerRtt peer_rtt(const std::vector<bool>& is_switch, const std::vector<LinkInfo>& links,
                 int64_t payload, const std::string& where) {
  const size_t n = is_switch.size();
  std::vector<std::vector<std::pair<int, size_t>>> adj(n);  // (neighbour, link)
  for (size_t i = 0; i < links.size(); ++i) {
    adj[static_cast<size_t>(links[i].a)].push_back({links[i].b, i});
    adj[static_cast<size_t>(links[i].b)].push_back({links[i].a, i});
  }
  size_t hosts = 0;
  for (bool s : is_switch) hosts += s ? 0 : 1;
  if (static_cast<double>(hosts) * static_cast<double>(n + links.size()) > 5e8) {
    throw InputError(where, std::to_string(hosts) + " hosts",
                     "a topology small enough to compute the peer's maxRtt from every host "
                     "(hosts x (nodes + links) <= 5e8)");
  }
  PeerRtt out;
  std::vector<int> dist(n);
  std::vector<__int128> delay_ps(n), tx_ps(n);  // sums over a path: no overflow
  std::vector<int64_t> bw(n);
  for (size_t h = 0; h < n; ++h) {
    if (is_switch[h]) continue;
    std::fill(dist.begin(), dist.end(), -1);
    std::deque<size_t> q{h};
    dist[h] = 0;
    delay_ps[h] = tx_ps[h] = 0;
    bw[h] = INT64_MAX;
    while (!q.empty()) {
      const size_t u = q.front();
      q.pop_front();
      for (const auto& [v, li] : adj[u]) {
        const auto vv = static_cast<size_t>(v);
        if (dist[vv] >= 0) continue;
        const LinkInfo& l = links[li];
        dist[vv] = dist[u] + 1;
        delay_ps[vv] = delay_ps[u] + l.latency.ps;
        // third.cc: packet_payload_size * 1e9 * 8 / bw, in whole nanoseconds.
        tx_ps[vv] = tx_ps[u] + payload * 1'000'000'000LL * 8 / l.rate_bps * 1000;
        bw[vv] = std::min(bw[u], l.rate_bps);
        if (is_switch[vv]) q.push_back(vv);
      }
    }
    for (size_t d = 0; d < n; ++d) {
      if (is_switch[d] || dist[d] < 0 || d == h) continue;
      const __int128 rtt_ps = 2 * delay_ps[d] + tx_ps[d];
      const __int128 bdp = rtt_ps / 1000 * bw[d] / 1'000'000'000 / 8;
      // An hour of RTT, or a BDP beyond 2^50 bytes, is no data-centre path (and would overflow
      // the window's arithmetic).
      if (rtt_ps > static_cast<__int128>(3'600) * 1'000'000'000'000 || bdp > (int64_t{1} << 50)) {
        throw InputError(where, "a host pair's RTT",
                         "links whose round trip stays below an hour and whose BDP below 2^50 "
                         "bytes");
      }
      out.max_rtt = std::max(out.max_rtt, sim::Time(static_cast<int64_t>(rtt_ps)));
      out.max_bdp = std::max(out.max_bdp, static_cast<int64_t>(bdp));
    }
  }
  return out;
}

std::string bytes_text(int64_t b) {
  return std::to_string(b) + "B";
}

}  // namespace

HpccConfigReport apply_hpcc_config(const HpccConfig& config, json& scenario) {
  HpccConfigReport report;
  const Reader r(config);
  for (const auto& [key, e] : config.keys) {
    if (kOutputKeys.count(key) != 0) {
      report.notes.push_back(key + " (" + r.path(e) +
                             "): the peer's output; rdmasim writes its own");
    } else if (kKnownKeys.count(key) == 0) {
      report.warnings.push_back(key + " (" + r.path(e) +
                                "): not a key of the ns-3 HPCC "
                                "simulator's config; ignored");
    }
  }

  // The topology as import_hpcc wrote it.
  const json& nodes = scenario["topology"]["nodes"];
  std::map<std::string, int> index;
  std::vector<bool> is_switch;
  for (const json& n : nodes) {
    index[n["name"].get<std::string>()] = static_cast<int>(is_switch.size());
    is_switch.push_back(n["kind"] == "switch");
  }
  std::vector<int> next_port(is_switch.size(), 0);
  std::vector<LinkInfo> links;
  for (const json& l : scenario["topology"]["links"]) {
    LinkInfo li;
    li.a = index.at(l["a"].get<std::string>());
    li.b = index.at(l["b"].get<std::string>());
    li.a_port = next_port[static_cast<size_t>(li.a)]++;
    li.b_port = next_port[static_cast<size_t>(li.b)]++;
    li.rate_bps = sim::parse_rate_bps(l["rate"].get<std::string>());
    li.latency = sim::parse_time(l["latency"].get<std::string>());
    links.push_back(li);
  }
  // The NIC rate: third.cc's get_nic_rate, the first host's link.
  int64_t nic_rate = 0;
  sim::Time nic_delay;
  for (const LinkInfo& l : links) {
    if (!is_switch[static_cast<size_t>(l.a)] || !is_switch[static_cast<size_t>(l.b)]) {
      nic_rate = l.rate_bps;
      nic_delay = l.latency;
      break;
    }
  }

  json& fabric = scenario["fabric"];
  const int64_t payload = r.integer("PACKET_PAYLOAD_SIZE", 1000, 1, 65536);
  // The settings the simulator has without a key (the four a per-flow comparison needs):
  // switches forward with no latency and mark ECN as a packet leaves the queue
  // (SwitchNotifyDequeue); a packet is its payload and 48 header bytes on the wire (no
  // preamble or inter-frame gap).
  fabric["switch"]["latency"] = "0ns";
  fabric["ecn"]["mark_at"] = "dequeue";
  fabric["nic"]["mtu"] = bytes_text(payload);
  fabric["nic"]["header_bytes"] = "48B";
  fabric["nic"]["framing_bytes"] = "0B";
  // An ACK is the 48-byte minimum frame; the INT or timestamp header is added by fabric.cc.
  fabric["nic"]["ack_payload_bytes"] = "0B";
  const int64_t ack_interval = r.integer("L2_ACK_INTERVAL", 0, 0, INT32_MAX);
  if (ack_interval == 0) {
    const HpccConfigEntry* e = r.get("L2_ACK_INTERVAL");
    throw InputError(e != nullptr ? r.path(*e) : config.file, "0",
                     "L2_ACK_INTERVAL > 0 (the simulator's default is 0: it sends no ACK, so no "
                     "flow ends)");
  }
  fabric["nic"]["ack_every"] = std::max<int64_t>(1, (ack_interval + payload - 1) / payload);
  // ACKs: the simulator's switches queue them in the class of the data they answer
  // (switch-node.cc puts every non-PFC, non-CNP packet in its pg queue); its NIC sends them
  // ahead of data from a queue of their own. rdmasim's NIC, too, sends a queued ACK before
  // pulling the next data packet.
  const bool ack_high = r.flag("ACK_HIGH_PRIO", false);
  if (ack_high) {
    report.warnings.push_back(
        "ACK_HIGH_PRIO 1: the NIC's ACKs share the data class's PFC pauses (the simulator's "
        "NIC keeps sending them while the data class is paused)");
  }
  // Switch buffer and PFC (switch-mmu.cc): a dynamic threshold (free shared buffer >> 3, one
  // step less per doubling of a port's speed over the NIC's), 4 KiB reserved per ingress
  // (port, priority), resume 3 KiB below the threshold, headroom 3 x rate x delay per port.
  const int64_t buffer_mb = r.integer("BUFFER_SIZE", 16, 1, 1 << 20);
  fabric["switch"]["buffer"] = bytes_text(buffer_mb * 1024 * 1024);
  fabric["switch"]["threshold_mode"] = "dynamic";
  fabric["switch"]["alpha"] = "1/8";
  // One 4 KiB reserve per ingress port, for its data queue (the MMU's total_rsrv counts one
  // per port): per (port, priority) of the flows' classes here, not of all eight.
  fabric["switch"]["reserve"] = "0B";
  if (!r.flag("USE_DYNAMIC_PFC_THRESHOLD", true)) {
    report.warnings.push_back(
        "USE_DYNAMIC_PFC_THRESHOLD 0: imported as dynamic, as the simulator's MMU computes "
        "the threshold (switch-mmu.cc GetPfcThreshold) whatever this key says");
  }
  std::set<int64_t> priorities;
  for (const json& f : scenario["workload"]["flows"])
    priorities.insert(f["priority"].get<int64_t>());
  json pfc_prios = json::array();
  for (int64_t p : priorities) pfc_prios.push_back(p);
  if (!priorities.empty()) fabric["nic"]["ack_priority"] = *priorities.begin();
  auto headroom = [](const LinkInfo& l) {
    const __int128 h =
        static_cast<__int128>(l.rate_bps) * (l.latency.ps / 1000) / 8 / 1'000'000'000 * 3;
    return static_cast<int64_t>(std::min<__int128>(h, int64_t{1} << 50));  // the loader bounds it
  };
  const int64_t nic_headroom = headroom(LinkInfo{0, 0, 0, 0, nic_rate, nic_delay});
  fabric["pfc"] = {{"enabled", true},
                   {"priorities", pfc_prios},
                   {"xon_offset", "3072B"},
                   {"headroom", bytes_text(std::max<int64_t>(1, nic_headroom))}};
  if (r.get("PAUSE_TIME") != nullptr) {
    report.notes.push_back(
        "PAUSE_TIME: the simulator holds a pause until the resume frame, as "
        "rdmasim's refreshed pauses do");
  }

  // ECN per link speed.
  const bool ecn = r.flag("ENABLE_QCN", true);
  const auto kmin = read_rate_map(r, "KMIN_MAP");
  const auto kmax = read_rate_map(r, "KMAX_MAP");
  const auto pmax = read_rate_map(r, "PMAX_MAP");
  auto ecn_for = [&](int64_t rate) -> json {
    if (kmin.count(rate) == 0 || kmax.count(rate) == 0 || pmax.count(rate) == 0) {
      const HpccConfigEntry* e = r.get("KMIN_MAP");
      throw InputError(e != nullptr ? r.path(*e) : config.file, std::to_string(rate),
                       "KMIN_MAP, KMAX_MAP and PMAX_MAP entries for every link speed of the "
                       "topology (the simulator asserts 'must set kmin for each link speed')");
    }
    const auto lo = static_cast<int64_t>(std::llround(kmin.at(rate) * 1000));
    const auto hi = static_cast<int64_t>(std::llround(kmax.at(rate) * 1000));
    return {{"enabled", ecn},
            {"kmin", bytes_text(lo)},
            // rdmasim's RED needs kmax > kmin; the simulator's step at kmin = kmax marks every
            // packet above it, as kmax one byte above does.
            {"kmax", bytes_text(std::max(hi, lo + 1))},
            {"pmax", std::min(1.0, pmax.at(rate))}};
  };
  fabric["ecn"].update(ecn_for(nic_rate));

  // Per switch port, where the speed or the delay differs from the NIC link's: ECN, the
  // dynamic threshold's alpha and the headroom.
  json overrides = json::array();
  for (int64_t p : priorities) {
    overrides.push_back({{"switch", "*"}, {"priority", p}, {"set", {{"reserve", "4096B"}}}});
  }
  for (const LinkInfo& l : links) {
    for (int side = 0; side < 2; ++side) {
      const int node = side == 0 ? l.a : l.b;
      if (!is_switch[static_cast<size_t>(node)]) continue;
      if (l.rate_bps == nic_rate && l.latency == nic_delay) continue;
      int shift = 3;
      for (int64_t rate = l.rate_bps; rate > nic_rate && shift > 0; rate /= 2) --shift;
      json set = {{"alpha", "1/" + std::to_string(1 << shift)},
                  {"headroom", bytes_text(std::max<int64_t>(1, headroom(l)))}};
      set["ecn"] = ecn_for(l.rate_bps);
      overrides.push_back({{"switch", nodes[static_cast<size_t>(node)]["name"]},
                           {"port", side == 0 ? l.a_port : l.b_port},
                           {"set", set}});
    }
  }
  if (!overrides.empty()) scenario["overrides"] = overrides;

  // Link errors: links of the topology with rate 0 take ERROR_RATE_PER_LINK (third.cc).
  const double loss = r.number("ERROR_RATE_PER_LINK", 0.0, 0.0, 1.0);
  if (loss > 0) fabric["link"]["loss_rate"] = loss;

  // Congestion control.
  const int64_t mode = r.integer("CC_MODE", 1, 0, 1000);
  const bool has_win = r.flag("HAS_WIN", true);
  const bool var_win = r.flag("VAR_WIN", false);
  if (!r.flag("GLOBAL_T", true)) {
    report.warnings.push_back(
        "GLOBAL_T 0: per-pair base RTTs and windows are not modelled; the "
        "network's largest (GLOBAL_T 1) is used");
  }
  if (!r.flag("RATE_BOUND", true)) {
    report.warnings.push_back("RATE_BOUND 0: rdmasim always paces at the QP's rate");
  }
  if (r.flag("L2_BACK_TO_ZERO", false)) {
    report.warnings.push_back(
        "L2_BACK_TO_ZERO 1: rdmasim retransmits go-back-N from the "
        "first missing packet, not from the chunk's start");
  }
  if (const HpccConfigEntry* e = r.get("LINK_DOWN");
      e != nullptr && !e->words.empty() && e->words[0] != "0") {
    report.warnings.push_back("LINK_DOWN (" + r.path(*e) +
                              "): not imported; add a link_events entry to the scenario");
  }
  const int64_t min_rate = r.rate("MIN_RATE", 100'000'000);
  const PeerRtt rtt = peer_rtt(is_switch, links, payload, config.file);
  json cc;
  switch (mode) {
    case 1: {  // DCQCN, Mellanox's version (rdma-hw.cc *Mlx)
      json d = {{"enabled", true}, {"preset", "hpcc-ns3"}};
      d["dce_tcp_rtt"] = sim::format_time(r.micros("ALPHA_RESUME_INTERVAL", sim::Time(55'000'000)));
      d["rate_reduce_monitor_period"] =
          sim::format_time(r.micros("RATE_DECREASE_INTERVAL", sim::Time(4'000'000)));
      d["rpg_time_reset"] = sim::format_time(r.micros("RP_TIMER", sim::Time(300'000'000)));
      d["clamp_tgt_rate"] = r.flag("CLAMP_TARGET_RATE", false);
      const double g = r.number("EWMA_GAIN", 1.0 / 16, 0.0, 1.0);
      const double scaled = 1024.0 * (1.0 - g);
      d["dce_tcp_g"] = static_cast<int64_t>(std::llround(scaled));
      if (std::fabs(scaled - std::round(scaled)) > 1e-9) {
        report.warnings.push_back("EWMA_GAIN " + Reader::fmt(g) +
                                  ": rounded to a whole 1/1024 (dce_tcp_g " +
                                  std::to_string(std::llround(scaled)) + ")");
      }
      d["rpg_threshold"] = r.integer("FAST_RECOVERY_TIMES", 5, 0, 1000);
      d["rpg_ai_rate"] = sim::format_rate(r.rate("RATE_AI", 5'000'000));
      d["rpg_hai_rate"] = sim::format_rate(r.rate("RATE_HAI", 50'000'000));
      d["rpg_min_rate"] = sim::format_rate(min_rate);
      fabric["dcqcn"] = d;
      if (has_win) {
        report.warnings.push_back(
            "HAS_WIN 1 with DCQCN: not imported (rdmasim's DCQCN is "
            "rate-only)");
      }
      break;
    }
    case 3:  // HPCC
      cc = {{"algorithm", "hpcc"},
            {"preset", "hpcc-ns3"},
            {"hpcc_eta", r.number("U_TARGET", 0.95, 0.01, 1.0)},
            {"hpcc_max_stage", r.integer("MI_THRESH", 5, 0, 1000)},
            {"hpcc_fast_react", r.flag("FAST_REACT", true)},
            {"rate_ai", sim::format_rate(r.rate("RATE_AI", 5'000'000))}};
      {
        const int64_t multi = r.integer("INT_MULTI", 1, 1, 1 << 20);
        cc["hpcc_int_byte_unit"] = bytes_text(128 * multi);
        cc["hpcc_int_queue_unit"] = bytes_text(80 * multi);
      }
      if (r.flag("MULTI_RATE", true)) {
        report.warnings.push_back(
            "MULTI_RATE 1: per-hop rates are not modelled; one rate from "
            "the most utilised hop (MULTI_RATE 0, the paper's)");
      }
      if (r.flag("SAMPLE_FEEDBACK", false)) {
        report.warnings.push_back(
            "SAMPLE_FEEDBACK 1: not modelled (every ACK's telemetry is used)");
      }
      break;
    case 7:  // TIMELY
      cc = {{"algorithm", "timely"},
            {"preset", "hpcc-ns3"},
            {"rate_ai", sim::format_rate(r.rate("RATE_AI", 5'000'000))},
            {"rate_hai", sim::format_rate(r.rate("RATE_HAI", 50'000'000))}};
      break;
    case 8:  // DCTCP
      cc = {{"algorithm", "dctcp"},
            {"preset", "hpcc-ns3"},
            {"dctcp_g", r.number("EWMA_GAIN", 1.0 / 16, 1.0 / 1024, 1.0)},
            {"rate_ai", sim::format_rate(r.rate("DCTCP_RATE_AI", 1'000'000'000))}};
      break;
    default: {
      const HpccConfigEntry* e = r.get("CC_MODE");
      throw InputError(e != nullptr ? r.path(*e) : config.file, std::to_string(mode),
                       "CC_MODE 1 (DCQCN), 3 (HPCC), 7 (TIMELY) or 8 (DCTCP); 10 (HPCC-PINT) "
                       "is not modelled");
    }
  }
  if (!cc.is_null()) {
    cc["min_rate"] = sim::format_rate(min_rate);
    cc["base_rtt"] = sim::format_time(rtt.max_rtt);
    cc["window"] = has_win ? json(bytes_text(std::max<int64_t>(1, rtt.max_bdp))) : json("none");
    cc["window_follows_rate"] = has_win && var_win;
    fabric["cc"] = cc;
  }

  // The simulator stops at SIMULATOR_STOP_TIME (seconds of simulated time).
  const double stop_s = r.number("SIMULATOR_STOP_TIME", 3.01, 0.0, 1e6);
  scenario["stop"] = {{"until", "workload-done"},
                      {"time", sim::format_time(sim::Time(std::llround(stop_s * 1e12)))}};
  return report;
}

}  // namespace scen
