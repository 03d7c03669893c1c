// Follows htsim's reader, ConnectionMatrix::load(istream&) in sim/datacenter/connection_matrix.cpp
// (Broadcom/csg-htsim; the same code in the uet-htsim forks): header lines "Nodes N",
// "Connections C" (and "Triggers T", "Failures F"), then connection lines whose first word is
// "src->dst" followed by key/value pairs, checked at the end against the declared counts.
//
// Start-time unit: PICOSECONDS. That reader parses the value with stof() and stores it
// unchanged in a simtime_picosec ("start is in picoseconds already"), and main_roce.cpp hands
// it straight to RoceSrc::connect() as the start time; the generator
// connection_matrices/gen_permutation.py writes int(extrastarttime_us * 1000000), i.e. µs
// turned into ps. (An older fscanf reader, left commented out in the same file, read
// microseconds through timeFromUs(); files from that era would need converting first.) htsim
// goes through a float, so above 2^24 ps (about 16.8 µs) its own start times are rounded to 24
// significant bits; this importer keeps the written value exactly.
#include "scenarios/import/htsim_import.hpp"

#include <limits>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "scenarios/loader/exact_decimal.hpp"
#include "scenarios/import/peer_text.hpp"
#include "scenarios/loader/input_error.hpp"
#include "scenarios/loader/quantity_bounds.hpp"

namespace scen {
namespace {

using peer::Exactness;
using peer::TextLine;
using peer::where;

constexpr int64_t kMaxCount = std::numeric_limits<int32_t>::max();

struct Header {
  std::optional<int64_t> nodes, connections;
  int nodes_line = 0, connections_line = 0;
  std::string nodes_text, connections_text;
};

// Reads the header lines up to the first connection; returns the index of that line.
size_t read_header(const std::vector<TextLine>& lines, const std::string& file, Header& h) {
  size_t i = 0;
  for (; i < lines.size(); ++i) {
    const TextLine& l = lines[i];
    const std::string& key = l.words[0];
    if (key.find("->") != std::string::npos) break;
    const std::string path = where(file, l.number);
    if (key != "Nodes" && key != "Connections" && key != "Triggers" && key != "Failures") {
      throw InputError(path, key,
                       "a header line ('Nodes N', 'Connections C') or a connection "
                       "'src->dst id K start T size B'");
    }
    if (l.words.size() != 2) throw InputError(path, l.text, "'" + key + " <count>'");
    const int64_t n = peer::parse_integer(l.words[1], 0, kMaxCount, path, "a count >= 0");
    if (key == "Nodes" || key == "Connections") {
      auto& slot = key == "Nodes" ? h.nodes : h.connections;
      if (slot) throw InputError(path, l.text, "a single '" + key + "' line");
      slot = n;
      (key == "Nodes" ? h.nodes_line : h.connections_line) = l.number;
      (key == "Nodes" ? h.nodes_text : h.connections_text) = l.text;
    } else if (n != 0) {
      // Triggers chain flows to other flows' completion; failures take switches down. Neither
      // has an rdmasim scenario equivalent yet, and silently dropping them would change the run.
      throw InputError(path, l.text,
                       "'" + key + " 0' (htsim triggers and failures are not imported)");
    }
  }
  if (!h.nodes) throw InputError(file, "", "a 'Nodes N' line before the connections");
  if (!h.connections) throw InputError(file, "", "a 'Connections C' line before the connections");
  return i;
}

int64_t start_picoseconds(const std::string& word, const std::string& path) {
  int64_t ps = 0;
  switch (peer::scale_decimal(word, 1, 0, ps)) {
    case Exactness::ok:
      return ps;
    case Exactness::malformed:
      throw InputError(path, word, "a start time in picoseconds, a number >= 0");
    case Exactness::not_whole:
      throw InputError(path, word, "a start time that is a whole number of picoseconds");
    case Exactness::out_of_range:
      break;
  }
  throw InputError(path, word, "a start time below 2^63 picoseconds");
}

nlohmann::json read_connection(const TextLine& l, const std::string& file, int64_t nodes,
                               std::set<int64_t>& ids) {
  const std::string path = where(file, l.number);
  const std::string& pair = l.words[0];
  const size_t arrow = pair.find("->");
  const std::string node_range = "a host id in 0.." + std::to_string(nodes - 1) + " (Nodes)";
  if (arrow == 0 || arrow + 2 == pair.size()) {
    throw InputError(path, pair, "'src->dst' with two host ids");
  }
  const int64_t src = peer::parse_integer(pair.substr(0, arrow), 0, nodes - 1, path, node_range);
  const int64_t dst = peer::parse_integer(pair.substr(arrow + 2), 0, nodes - 1, path, node_range);
  if (src == dst) throw InputError(path, pair, "a destination different from the source");

  std::optional<int64_t> start_ps, size;
  for (size_t i = 1; i < l.words.size(); i += 2) {
    const std::string& key = l.words[i];
    if (key != "id" && key != "start" && key != "size") {
      throw InputError(path, key,
                       "one of the keys id, start, size (htsim triggers, priorities and message "
                       "ids are not imported)");
    }
    if (i + 1 >= l.words.size()) throw InputError(path, l.text, "a value after '" + key + "'");
    const std::string& value = l.words[i + 1];
    if (key == "id") {
      // htsim refuses id 0 and duplicate ids; the id itself has no rdmasim meaning.
      const int64_t id = peer::parse_integer(value, 1, std::numeric_limits<int64_t>::max(), path,
                                             "a connection id, an integer >= 1");
      if (!ids.insert(id).second) throw InputError(path, value, "a connection id used once");
    } else if (key == "start") {
      if (start_ps) throw InputError(path, l.text, "a single 'start'");
      start_ps = start_picoseconds(value, path);
    } else {
      if (size) throw InputError(path, l.text, "a single 'size'");
      // htsim reads size 0 as "send forever"; rdmasim's flows are finite.
      size = peer::parse_integer(value, 1, scen::kMaxBytes, path,
                                 "a flow size in bytes, an integer from 1 to 2^40 (1 TiB)");
    }
  }
  if (!start_ps) throw InputError(path, l.text, "a 'start T' field (picoseconds)");
  if (!size) throw InputError(path, l.text, "a 'size B' field (bytes)");
  return {{"src", "h" + std::to_string(src)},
          {"dst", "h" + std::to_string(dst)},
          {"size", std::to_string(*size) + "B"},
          {"start", peer::time_text(*start_ps)}};
}

}  // namespace

nlohmann::json import_htsim(const std::string& matrix_text, const std::string& matrix_name,
                            int fat_tree_k, const std::string& scenario_name) {
  // A k-ary fat-tree exists for even k only (k/2 hosts per edge switch, k pods); htsim's
  // FatTreeTopology finds K from the host count the same way (K^3/4 = N).
  if (fat_tree_k < 2 || fat_tree_k % 2 != 0 || fat_tree_k > 2048) {
    throw InputError("fat_tree_k", std::to_string(fat_tree_k),
                     "an even fat-tree radix k between 2 and 2048");
  }
  const int64_t k = fat_tree_k;
  const int64_t fat_tree_hosts = k * k * k / 4;

  const std::vector<TextLine> lines = peer::content_lines(matrix_text, /*hash_comments=*/true);
  Header h;
  size_t next = read_header(lines, matrix_name, h);
  if (*h.nodes != fat_tree_hosts) {
    throw InputError(where(matrix_name, h.nodes_line), h.nodes_text,
                     "Nodes " + std::to_string(fat_tree_hosts) +
                         ", the hosts of a k=" + std::to_string(k) + " fat-tree (k^3/4)");
  }

  nlohmann::json flows = nlohmann::json::array();
  std::set<int64_t> ids;
  for (; next < lines.size(); ++next) {
    const TextLine& l = lines[next];
    if (l.words[0].find("->") == std::string::npos) {
      throw InputError(where(matrix_name, l.number), l.words[0],
                       "a connection 'src->dst id K start T size B' (header lines come first)");
    }
    flows.push_back(read_connection(l, matrix_name, *h.nodes, ids));
  }
  if (static_cast<int64_t>(flows.size()) != *h.connections) {
    throw InputError(
        where(matrix_name, h.connections_line), h.connections_text,
        "Connections " + std::to_string(flows.size()) + ", the number of connection lines");
  }

  return {
      {"name", scenario_name},
      // Any fixed seed keeps the imported scenario reproducible; the workload itself is fixed.
      {"seed", 1},
      // htsim's RoCE runs (main_roce.cpp defaults and the peers' README): 100 Gbps links, 1 µs
      // per hop, no switching latency, 4000-byte packets. Host i is htsim's host i, which sits
      // under edge switch i / (k/2) (HOST_POD_SWITCH); rdmasim's fat-tree generator must number
      // hosts the same way for rack-sensitive matrices (incast from 8 racks) to mean the same.
      {"topology", {{"generator", "fat-tree"}, {"k", k}, {"rate", "100Gbps"}, {"latency", "1us"}}},
      {"fabric", {{"switch", {{"latency", "0ns"}}}, {"nic", {{"mtu", "4000B"}}}}},
      {"workload", {{"flows", std::move(flows)}}},
      {"stop", {{"until", "workload-done"}}},
  };
}

}  // namespace scen
