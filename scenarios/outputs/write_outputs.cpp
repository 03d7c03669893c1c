#include "scenarios/outputs/write_outputs.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "scenarios/loader/input_error.hpp"
#include "scenarios/outputs/collectives_table.hpp"
#include "scenarios/outputs/csv_cell.hpp"
#include "scenarios/outputs/output_folder.hpp"
#include "scenarios/run/percentiles.hpp"
#include "sim/units.hpp"

namespace scen {

namespace {

// "<dir>/.<name>.tmp.<pid>": beside the target (so that the rename stays in one file system),
// hidden, and named by the writing process.
std::string temp_name(const std::filesystem::path& target, long pid) {
  return (target.parent_path() / ("." + target.filename().string() + ".tmp." + std::to_string(pid)))
      .string();
}

// Temporary copies of `target` left by writers that were killed: their process is gone.
void remove_stale_temps(const std::filesystem::path& target) {
  std::error_code ec;
  const std::filesystem::path dir =
      target.parent_path().empty() ? std::filesystem::path(".") : target.parent_path();
  const std::string prefix = "." + target.filename().string() + ".tmp.";
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    const std::string digits = name.substr(prefix.size());
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    const long pid = std::stol(digits);
    if (pid != ::getpid() && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
      std::filesystem::remove(e.path(), ec);
    }
  }
}

}  // namespace

void write_file_atomic(const std::string& path, const std::string& content) {
  const std::filesystem::path target(path);
  std::error_code ec;
  if (std::filesystem::is_directory(target, ec)) {
    throw InputError(path, "(a folder)", "a file name to write, not a folder");
  }
  remove_stale_temps(target);
  const std::string tmp = temp_name(target, ::getpid());
  try {
    {
      std::ofstream o(tmp, std::ios::binary | std::ios::trunc);
      if (!o) throw std::runtime_error("cannot write " + tmp);
      o << content;
      o.flush();
      if (!o) throw std::runtime_error("cannot write " + tmp);
    }
    std::filesystem::rename(tmp, path);
  } catch (...) {
    std::filesystem::remove(tmp, ec);  // nothing half-written stays behind
    throw;
  }
}

std::string summary_json(const Scenario& s, const RunOutcome& out) {
  Json j;
  j["scenario"] = s.name;
  j["config"] = s.effective;
  Json topo_summary;
  topo_summary["hosts"] = s.fabric.host_node.size();
  topo_summary["switches"] = s.fabric.topo.nodes.size() - s.fabric.host_node.size();
  topo_summary["links"] = s.fabric.topo.links.size();
  j["topology"] = topo_summary;
  j["results"] = out.results;
  Json warnings = Json::array();
  for (const RunWarning& w : out.warnings) {
    warnings.push_back({{"code", w.code}, {"message", w.message}});
  }
  j["warnings"] = std::move(warnings);
  j["counters"] = out.counters;
  return j.dump(2) + "\n";
}

std::string flows_csv(const RunOutcome& out) {
  std::ostringstream o;
  o << "flow_id,tag,src,dst,bytes,priority,qps,start_ns,finish_ns,fct_ns,ideal_fct_ns,slowdown,"
       "retransmitted_packets,timeouts,completed\n";
  for (const auto& r : out.flows) {
    o << r.id << ',' << csv_cell(r.tag) << ',' << csv_cell(r.src) << ',' << csv_cell(r.dst) << ','
      << r.bytes << ',' << r.priority << ',' << r.qps << ',' << format_ns(r.start) << ',';
    if (r.completed) {
      o << format_ns(r.finish) << ',' << format_ns(r.fct) << ',';
    } else {
      o << ",,";
    }
    o << format_ns(r.ideal_fct) << ',';
    if (r.completed && r.ideal_fct.ps > 0) o << format_milli(r.fct.ps * 1000 / r.ideal_fct.ps);
    o << ',' << r.retransmitted_packets << ',' << r.timeouts << ',' << (r.completed ? 1 : 0)
      << '\n';
  }
  return o.str();
}

std::string links_csv(const RunOutcome& out) {
  std::ostringstream o;
  o << "link,direction,from,from_port,to,to_port,rate_Gbps,up,packets,wire_bytes,utilisation,"
       "busy_ns,max_queue_bytes,tail_drops,lost_packets,stalled_ns,pause_frames_sent,"
       "pause_frames_received,paused_ns,ecn_marks,credit_stalled_ns,fecn_marks\n";
  const int64_t span = out.end_time.ps;
  for (const auto& r : out.links) {
    // Utilisation: time the serialiser was busy over the simulated span, 1/1000 resolution.
    const int64_t util_milli =
        span > 0 ? static_cast<int64_t>(static_cast<__int128>(r.busy.ps) * 1000 / span) : 0;
    o << r.link << ',' << (r.direction == 0 ? "a>b" : "b>a") << ',' << csv_cell(r.from) << ','
      << r.from_port << ',' << csv_cell(r.to) << ',' << r.to_port << ','
      << format_milli(r.rate_bps / 1'000'000) << ',' << (r.up ? 1 : 0) << ',' << r.packets << ','
      << r.wire_bytes << ',' << format_milli(util_milli) << ',' << format_ns(r.busy) << ','
      << r.max_queue_bytes << ',' << r.tail_drops << ',' << r.lost_packets << ','
      << format_ns(r.stalled) << ',' << r.pause_frames_sent << ',' << r.pause_frames_received << ','
      << format_ns(r.paused) << ',' << r.ecn_marks << ',' << format_ns(r.credit_stalled) << ','
      << r.fecn_marks << '\n';
  }
  return o.str();
}

std::string classes_csv(const RunOutcome& out) {
  std::ostringstream o;
  o << "link,direction,from,from_port,to,to_port,priority,packets,wire_bytes,max_queue_bytes,"
       "tail_drops,ecn_marks,pause_frames_received,paused_ns,pause_frames_sent,"
       "resume_frames_sent,xoff_transitions,peak_ingress_bytes,credit_stalled_ns,fecn_marks\n";
  // ECN and PFC are per Ethernet priority (8); InfiniBand VLs 8..14 have none.
  const auto eth = [](const auto& per_priority, int c) {
    using T = typename std::decay_t<decltype(per_priority)>::value_type;
    return c < models::kPriorities ? per_priority[c] : T{};
  };
  for (const auto& r : out.links) {
    for (int c = 0; c < models::kMaxClasses; ++c) {
      if (r.class_packets[c] == 0 && r.class_max_queue_bytes[c] == 0 &&
          r.class_tail_drops[c] == 0 && eth(r.class_pause_frames_received, c) == 0 &&
          eth(r.class_pause_frames_sent, c) == 0 && eth(r.class_resume_frames_sent, c) == 0 &&
          r.class_credit_stalled[c].ps == 0 && r.class_fecn_marks[c] == 0) {
        continue;
      }
      o << r.link << ',' << (r.direction == 0 ? "a>b" : "b>a") << ',' << csv_cell(r.from) << ','
        << r.from_port << ',' << csv_cell(r.to) << ',' << r.to_port << ',' << c << ','
        << r.class_packets[c] << ',' << r.class_wire_bytes[c] << ',' << r.class_max_queue_bytes[c]
        << ',' << r.class_tail_drops[c] << ',' << eth(r.class_ecn_marks, c) << ','
        << eth(r.class_pause_frames_received, c) << ',' << format_ns(eth(r.class_paused, c)) << ','
        << eth(r.class_pause_frames_sent, c) << ',' << eth(r.class_resume_frames_sent, c) << ','
        << eth(r.class_xoff_transitions, c) << ',' << r.class_peak_ingress_bytes[c] << ','
        << format_ns(r.class_credit_stalled[c]) << ',' << r.class_fecn_marks[c] << '\n';
    }
  }
  return o.str();
}

std::string nics_csv(const RunOutcome& out) {
  std::ostringstream o;
  o << "host,data_packets_sent,data_packets_received,acks_sent,nacks_sent,acks_received,"
       "ce_packets_received,cnps_sent,cnps_received,congestion_flagged_acks_received,"
       "pause_frames_received,pause_frames_sent,resume_frames_sent,pause_asserted_ns,"
       "rx_buffer_peak_bytes,rx_overflow_drops\n";
  for (size_t h = 0; h < out.nics.size(); ++h) {
    const models::NicStats& n = out.nics[h];
    o << csv_cell(out.host_names[h]) << ',' << n.data_packets_sent << ',' << n.data_packets_received
      << ',' << n.acks_sent << ',' << n.nacks_sent << ',' << n.acks_received << ','
      << n.ce_marked_received << ',' << n.cnps_sent << ',' << n.cnps_received << ','
      << n.congestion_flags_received << ',' << n.pause_frames_received << ',' << n.pause_frames_sent
      << ',' << n.resume_frames_sent << ',' << format_ns(n.pause_asserted_time) << ','
      << n.rx_buffer_peak_bytes << ',' << n.rx_overflow_drops << '\n';
  }
  return o.str();
}

std::string timeseries_csv(const RunOutcome& out) {
  std::ostringstream o;
  o << "time_ns,series,queue_bytes,tx_bytes,rate_limit_Gbps\n";
  // Ports and flows sampled at the same instants, merged in time order (ports first).
  size_t p = 0, f = 0;
  while (p < out.samples.size() || f < out.flow_samples.size()) {
    if (p < out.samples.size() &&
        (f == out.flow_samples.size() || out.samples[p].time <= out.flow_samples[f].time)) {
      const auto& smp = out.samples[p++];
      o << format_ns(smp.time) << ',' << csv_cell(out.sampled_ports[smp.port]) << ','
        << smp.queue_bytes << ',' << smp.tx_bytes << ",\n";
    } else {
      const auto& smp = out.flow_samples[f++];
      o << format_ns(smp.time) << ",flow:" << out.sampled_flows[smp.flow] << ",,"
        << smp.delivered_bytes << ',' << format_milli(smp.rate_limit_bps / 1'000'000) << '\n';
    }
  }
  return o.str();
}

std::string rates_csv(const RunOutcome& out) {
  std::ostringstream o;
  o << "time_ns,flow,qp,rate_Gbps,target_Gbps,alpha\n";
  char alpha[32];
  for (const auto& c : out.rate_changes) {
    std::snprintf(alpha, sizeof alpha, "%.6f", c.alpha);
    o << format_ns(c.time) << ',' << c.flow << ',' << c.qp << ','
      << format_milli(c.rate_bps / 1'000'000) << ',' << format_milli(c.target_bps / 1'000'000)
      << ',' << alpha << '\n';
  }
  return o.str();
}

std::string pfc_csv(const RunOutcome& out) {
  std::ostringstream o;
  o << "time_ns,node,port,priority,event,ingress_bytes\n";
  static const char* kKinds[] = {"pause", "refresh", "resume"};
  for (const auto& e : out.pfc_events) {
    o << format_ns(e.time) << ',' << csv_cell(out.node_names[e.node]) << ',' << e.port << ','
      << static_cast<int>(e.priority) << ',' << kKinds[e.kind] << ',' << e.ingress_bytes << '\n';
  }
  return o.str();
}

void write_outputs(const Scenario& s, const RunOutcome& out, const std::string& dir) {
  std::filesystem::create_directories(dir);
  clear_earlier_run(dir);  // no file of another run stays beside these (output_folder.hpp)
  write_file_atomic(dir + "/summary.json", summary_json(s, out));
  write_file_atomic(dir + "/flows.csv", flows_csv(out));
  write_file_atomic(dir + "/links.csv", links_csv(out));
  write_file_atomic(dir + "/classes.csv", classes_csv(out));
  write_file_atomic(dir + "/nics.csv", nics_csv(out));
  if (!out.samples.empty() || !out.flow_samples.empty()) {
    write_file_atomic(dir + "/timeseries.csv", timeseries_csv(out));
  }
  if (s.dcqcn.enabled && !out.sampled_flows.empty()) {
    write_file_atomic(dir + "/rates.csv", rates_csv(out));
  }
  if (s.pfc.enabled) write_file_atomic(dir + "/pfc.csv", pfc_csv(out));
  if (!s.fct_size_edges.empty()) {
    write_file_atomic(dir + "/fct_by_size.csv", fct_by_size_csv(s.fct_size_edges, out));
  }
  if (s.fabric_kind == FabricKind::Infiniband) {
    write_file_atomic(dir + "/credits.csv", credits_csv(out));
  }
  if (s.fabric_kind == FabricKind::Infiniband && s.ib.cc.enabled && !out.sampled_flows.empty()) {
    write_file_atomic(dir + "/ib_cc.csv", ib_cc_csv(out));
  }
  if (!s.collectives.empty()) {
    write_file_atomic(dir + "/collectives.csv", collectives_csv(out.collectives, s.collectives));
  }
  if (!out.training_steps.empty()) write_file_atomic(dir + "/training.csv", training_csv(out));
  if (!out.chakra_ranks.empty()) write_file_atomic(dir + "/chakra.csv", chakra_csv(out));
  if (!out.training_steps.empty() && !out.training_steps.back().groups.empty()) {
    write_file_atomic(dir + "/training_groups.csv", training_groups_csv(out));
  }
  if (s.pfc.enabled && s.pfc.deadlock_detection) {
    write_file_atomic(dir + "/deadlocks.json", out.deadlocks.dump(2) + "\n");
  }
  Json stats;
  stats["wall_seconds"] = out.wall_seconds;
  stats["events"] = out.events;
  stats["events_per_second"] = out.wall_seconds > 0 ? out.events / out.wall_seconds : 0.0;
  stats["packet_hops"] = out.packet_hops;
  stats["packet_hops_per_second"] = out.wall_seconds > 0 ? out.packet_hops / out.wall_seconds : 0.0;
  stats["simulated_ns"] = ns_number(out.end_time);
  stats["simulated_ps"] = out.end_time.ps;
  stats["wall_seconds_per_simulated_ms"] =
      out.end_time.ps > 0 ? out.wall_seconds / (out.end_time.seconds() * 1e3) : 0.0;
  stats["peak_rss_mb"] = static_cast<double>(out.peak_rss_kb) / 1024.0;
  stats["huge_pages_mb"] = static_cast<double>(out.huge_pages_kb) / 1024.0;
  stats["packet_pool_capacity"] = out.packet_pool_capacity;
  write_file_atomic(dir + "/run_stats.json", stats.dump(2) + "\n");
}

}  // namespace scen
