// The ns-3 HPCC simulator's config file (its `KEY value` format, read by
// simulation/scratch/third.cc), mapped onto an imported scenario: congestion control and its
// parameters, ECN thresholds per link speed, switch buffer and PFC thresholds, ACK interval
// and priority, payload size, window, stop time — and the settings that simulator has without
// a key (no switching latency, ECN marked at dequeue, 48-byte headers, no Ethernet framing).
// docs/cli.md, "import hpcc --config"; docs/roce.md, "Congestion control beyond DCQCN".
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace scen {

struct HpccConfigEntry {
  std::vector<std::string> words;  // the values after the key
  int line = 0;
};

struct HpccConfig {
  std::string file;
  std::map<std::string, HpccConfigEntry> keys;  // a key given twice: the last (as third.cc)
  // The entry of `key`, or nullptr.
  const HpccConfigEntry* find(const std::string& key) const;
};

// Reads the config file's lines `KEY value...`; blank lines are skipped.
HpccConfig read_hpcc_config(const std::string& text, const std::string& file);

// What the mapping could not carry over or chose to note, one line each.
struct HpccConfigReport {
  std::vector<std::string> warnings;  // keys or values rdmasim does not model
  std::vector<std::string> notes;     // keys that are not settings (the peer's output files)
};

// Applies `config` to `scenario`, a scenario import_hpcc made (its topology: nodes hN / sN,
// links with rate and latency). Throws InputError (file:line) on a malformed or impossible
// value.
HpccConfigReport apply_hpcc_config(const HpccConfig& config, nlohmann::json& scenario);

}  // namespace scen
