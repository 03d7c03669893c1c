// The field meanings follow the reader in the HPCC simulator's simulation/scratch/third.cc:
//   topof >> node_num >> switch_num >> link_num;  then switch_num switch ids;
//   topof >> src >> dst >> data_rate >> link_delay >> error_rate;   (per link)
//   flowf >> src >> dst >> pg >> dport >> maxPacketCount >> start_time;   (per flow)
// where data_rate and link_delay are ns-3 DataRate and Time strings, maxPacketCount is the
// flow size in bytes, and start_time is in seconds. Unlike that reader (whitespace-separated
// tokens, no checks), this one is line-based so that every error names its line.
#include "scenarios/import/hpcc_import.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <string_view>
#include <vector>

#include "scenarios/loader/exact_decimal.hpp"
#include "scenarios/import/ns3_quantity.hpp"
#include "scenarios/import/peer_text.hpp"
#include "scenarios/loader/input_error.hpp"
#include "scenarios/loader/quantity_bounds.hpp"

namespace scen {
namespace {

using peer::Exactness;
using peer::TextLine;
using peer::where;

double parse_error_rate(const std::string& word, const std::string& path) {
  double v = 0;
  const char* end = word.data() + word.size();
  const auto [ptr, ec] = std::from_chars(word.data(), end, v);
  if (ec != std::errc() || ptr != end || !std::isfinite(v) || v < 0.0 || v > 1.0) {
    throw InputError(path, word, "an error rate: a probability in [0, 1]");
  }
  return v;
}

struct HpccTopology {
  int64_t node_count = 0;
  std::vector<bool> is_switch;
  nlohmann::json nodes = nlohmann::json::array();
  nlohmann::json links = nlohmann::json::array();
};

// A million nodes: far beyond any peer file, and what memory allows (10^9 ran out of it).
constexpr int64_t kMaxNodes = 1'000'000;

HpccTopology read_topology(const std::string& text, const std::string& file) {
  const std::vector<TextLine> lines = peer::content_lines(text, /*hash_comments=*/false);
  if (lines.empty()) {
    throw InputError(file, "", "a first line 'N_nodes N_switches N_links'");
  }
  const TextLine& head = lines[0];
  const std::string head_path = where(file, head.number);
  if (head.words.size() != 3) {
    throw InputError(head_path, head.text, "'N_nodes N_switches N_links' (three integers)");
  }
  HpccTopology topo;
  topo.node_count =
      peer::parse_integer(head.words[0], 1, kMaxNodes, head_path, "a node count from 1 to 1000000");
  const int64_t switch_count = peer::parse_integer(
      head.words[1], 0, topo.node_count, head_path,
      "a switch count between 0 and the node count (" + std::to_string(topo.node_count) + ")");
  const int64_t link_count = peer::parse_integer(head.words[2], 0, 10 * kMaxNodes, head_path,
                                                 "a link count from 0 to 10000000");
  const std::string node_range = "a node id in 0.." + std::to_string(topo.node_count - 1);

  // The switch ids: one line, present only when there are switches (a blank line for zero
  // switches is skipped with the other blank lines).
  size_t next = 1;
  topo.is_switch.assign(static_cast<size_t>(topo.node_count), false);
  if (switch_count > 0) {
    if (next >= lines.size()) {
      throw InputError(head_path, head.text,
                       "a second line with the " + std::to_string(switch_count) + " switch ids");
    }
    const TextLine& sw = lines[next++];
    const std::string sw_path = where(file, sw.number);
    if (static_cast<int64_t>(sw.words.size()) != switch_count) {
      throw InputError(sw_path, sw.text,
                       std::to_string(switch_count) + " switch node ids (the count on line " +
                           std::to_string(head.number) + ")");
    }
    for (const std::string& w : sw.words) {
      const auto id =
          static_cast<size_t>(peer::parse_integer(w, 0, topo.node_count - 1, sw_path, node_range));
      if (topo.is_switch[id]) throw InputError(sw_path, w, "switch ids listed once each");
      topo.is_switch[id] = true;
    }
  }

  auto node_name = [&](int64_t id) {
    return (topo.is_switch[static_cast<size_t>(id)] ? "s" : "h") + std::to_string(id);
  };

  int64_t links_read = 0;
  for (; next < lines.size() && links_read < link_count; ++next, ++links_read) {
    const TextLine& l = lines[next];
    const std::string path = where(file, l.number);
    if (l.words.size() != 5) {
      throw InputError(path, l.text, "a link 'src dst rate delay error_rate' (5 columns)");
    }
    const int64_t a = peer::parse_integer(l.words[0], 0, topo.node_count - 1, path, node_range);
    const int64_t b = peer::parse_integer(l.words[1], 0, topo.node_count - 1, path, node_range);
    if (a == b) throw InputError(path, l.text, "a link between two different nodes");
    topo.links.push_back({{"a", node_name(a)},
                          {"b", node_name(b)},
                          {"rate", peer::ns3_rate_text(l.words[2], path)},
                          {"latency", peer::ns3_delay_text(l.words[3], path)},
                          {"loss_rate", parse_error_rate(l.words[4], path)}});
  }
  if (links_read < link_count) {
    throw InputError(head_path, head.text,
                     std::to_string(link_count) + " link lines, as declared; found " +
                         std::to_string(links_read));
  }
  if (next < lines.size()) {
    throw InputError(where(file, lines[next].number), lines[next].text,
                     "the end of the file: line " + std::to_string(head.number) + " declares " +
                         std::to_string(link_count) + " links");
  }
  // Fewer than N - 1 links leave a node unreachable (the fabric would be refused as
  // disconnected): refused here, before a node list is made for every declared node.
  if (link_count < topo.node_count - 1) {
    throw InputError(head_path, head.text,
                     "at least " + std::to_string(topo.node_count - 1) + " links to connect " +
                         std::to_string(topo.node_count) + " nodes");
  }
  for (int64_t i = 0; i < topo.node_count; ++i) {
    const bool sw = topo.is_switch[static_cast<size_t>(i)];
    topo.nodes.push_back(
        {{"name", (sw ? "s" : "h") + std::to_string(i)}, {"kind", sw ? "switch" : "host"}});
  }
  return topo;
}

nlohmann::json read_flows(const std::string& text, const std::string& file,
                          const HpccTopology& topo, const std::string& topo_file) {
  const std::vector<TextLine> lines = peer::content_lines(text, /*hash_comments=*/false);
  if (lines.empty()) throw InputError(file, "", "a first line with the number of flows");
  const TextLine& head = lines[0];
  const std::string head_path = where(file, head.number);
  if (head.words.size() != 1) throw InputError(head_path, head.text, "the number of flows");
  const int64_t flow_count =
      peer::parse_integer(head.words[0], 0, std::numeric_limits<int64_t>::max(), head_path,
                          "the number of flows, an integer >= 0");
  const std::string node_range = "a node id in 0.." + std::to_string(topo.node_count - 1) +
                                 " (the nodes of " + topo_file + ")";
  auto host_name = [&](const std::string& word, const std::string& path) {
    const int64_t id = peer::parse_integer(word, 0, topo.node_count - 1, path, node_range);
    if (topo.is_switch[static_cast<size_t>(id)]) {
      throw InputError(path, word,
                       "a host id (node " + word + " is a switch in " + topo_file + ")");
    }
    return "h" + std::to_string(id);
  };

  nlohmann::json flows = nlohmann::json::array();
  size_t next = 1;
  for (; next < lines.size() && static_cast<int64_t>(flows.size()) < flow_count; ++next) {
    const TextLine& l = lines[next];
    const std::string path = where(file, l.number);
    if (l.words.size() != 6) {
      throw InputError(path, l.text,
                       "a flow 'src dst priority dport size_bytes start_seconds' (6 columns)");
    }
    const std::string src = host_name(l.words[0], path);
    const std::string dst = host_name(l.words[1], path);
    if (src == dst) throw InputError(path, l.text, "a destination different from the source");
    const int64_t priority =
        peer::parse_integer(l.words[2], 0, 7, path, "a priority (traffic class) in 0..7");
    // The dport column is ignored: HPCC uses it only as the destination UDP port of the flow's
    // queue pair, and rdmasim chooses its own ports. It is still checked, as a guard against
    // shifted columns.
    peer::parse_integer(l.words[3], 0, 65535, path, "a UDP port number in 0..65535");
    const int64_t size = peer::parse_integer(l.words[4], 1, scen::kMaxBytes, path,
                                             "a flow size in bytes, an integer from 1 to 2^40 "
                                             "(1 TiB)");
    // Seconds with up to nine decimals ("2.000000261"), converted digit by digit: a double
    // would not hold it to the picosecond. (HPCC itself goes through Seconds(double).)
    int64_t start_ps = 0;
    switch (peer::scale_decimal(l.words[5], 1, 12, start_ps)) {
      case Exactness::ok:
        break;
      case Exactness::malformed:
        throw InputError(path, l.words[5], "a start time in seconds, such as 2.000000261");
      case Exactness::not_whole:
        throw InputError(path, l.words[5], "a start time that is a whole number of picoseconds");
      case Exactness::out_of_range:
        throw InputError(path, l.words[5], "a start time below 106 days");
    }
    flows.push_back({{"src", src},
                     {"dst", dst},
                     {"size", std::to_string(size) + "B"},
                     {"start", peer::time_text(start_ps)},
                     {"priority", priority}});
  }
  if (static_cast<int64_t>(flows.size()) < flow_count) {
    throw InputError(head_path, head.text,
                     std::to_string(flow_count) + " flow lines, as declared; found " +
                         std::to_string(flows.size()));
  }
  if (next < lines.size()) {
    throw InputError(where(file, lines[next].number), lines[next].text,
                     "the end of the file: line " + std::to_string(head.number) + " declares " +
                         std::to_string(flow_count) + " flows");
  }
  return flows;
}

}  // namespace

nlohmann::json import_hpcc(const std::string& topo_text, const std::string& topo_name,
                           const std::string& flows_text, const std::string& flows_name,
                           const std::string& scenario_name) {
  HpccTopology topo = read_topology(topo_text, topo_name);
  nlohmann::json flows = read_flows(flows_text, flows_name, topo, topo_name);
  return {
      {"name", scenario_name},
      // Any fixed seed keeps the imported scenario reproducible; the workload itself is fixed.
      {"seed", 1},
      {"topology", {{"nodes", std::move(topo.nodes)}, {"links", std::move(topo.links)}}},
      // HPCC's runs use 1000-byte payloads (PACKET_PAYLOAD_SIZE 1000 in the config its run.py
      // writes).
      {"fabric", {{"nic", {{"mtu", "1000B"}}}}},
      {"workload", {{"flows", std::move(flows)}}},
      {"stop", {{"until", "workload-done"}}},
  };
}

}  // namespace scen
