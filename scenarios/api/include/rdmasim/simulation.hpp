// rdmasim as a library: load a scenario, run it to its end or step it, post messages between
// hosts with completion callbacks, schedule callbacks at a time, read counters and results.
// The shape is that of a system simulator's network backend (ASTRA-sim's network API: send
// and receive with completion callbacks, a callback after a delay, the current time), so
// rdmasim can carry the traffic of a simulated training job packet by packet.
//
// This header needs only the C++ standard library; everything else stays inside librdmasim.
// docs/library.md walks through it; examples/cpp/ is a complete program.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace rdmasim {

// Simulated time in picoseconds, the simulator's resolution.
using Picoseconds = int64_t;
inline constexpr Picoseconds kNanosecond = 1000;
inline constexpr Picoseconds kMicrosecond = 1000 * kNanosecond;
inline constexpr Picoseconds kMillisecond = 1000 * kMicrosecond;

// Refused input — a scenario, an override, a host name, a message size — with what was
// refused, where (the JSON path), and what was expected: the message `rdmasim run` prints
// before it exits with code 2. Nothing has been simulated when it is thrown.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct LoadOptions {
  // "path.to.key=value" overrides applied in order, as `rdmasim run --set`.
  std::vector<std::string> sets;
  // Replaces the scenario's seed.
  std::optional<uint64_t> seed;
  // Of a scenario whose "fabric" lists several ("roce", "infiniband", "tcp"): which one to
  // load; empty = the first listed.
  std::string fabric;
  // Refuse a scenario whose estimated memory is beyond this many bytes (0 = this machine's
  // memory), as `rdmasim run --max-memory`.
  int64_t max_memory_bytes = 0;
};

enum class Transport {
  Fabric,  // the scenario's (fabric.transport): RDMA unless it says "tcp"
  Rdma,    // reliable-connected queue pairs
  Tcp,     // the kernel TCP stack of the hosts (docs/tcp.md)
};

struct MessageOptions {
  // Traffic class 0..7 (the Ethernet priority, or the InfiniBand SL); unset: the scenario's
  // data class (fabric.nic.data_priority).
  std::optional<int> priority;
  int qps = 1;  // queue pairs the message is striped over, 1..64
  Transport transport = Transport::Fabric;
  uint32_t tag = 0;  // matched by recv(), as an MPI or ASTRA-sim tag
};

// What a message's callbacks are told. Times are simulated picoseconds.
struct Message {
  uint64_t id = 0;  // as send() returned it
  std::string src, dst;
  int64_t bytes = 0;
  uint32_t tag = 0;
  Picoseconds posted = 0;     // when send() was called
  Picoseconds delivered = 0;  // its last byte reached the receiving host (0: not yet)
  Picoseconds completed = 0;  // the sender saw its last acknowledgement (0: not yet)
};

// One message of the run, as flows.csv has it (docs/outputs.md).
struct FlowRecord {
  uint32_t id = 0;
  std::string tag;  // which workload made it ("flows", "incast", ..., "api" for send())
  std::string src, dst;
  int64_t bytes = 0;
  int priority = 0;
  bool completed = false;
  Picoseconds start = 0, finish = 0, fct = 0, ideal_fct = 0;
  uint64_t retransmitted_packets = 0;
  uint64_t timeouts = 0;
};

// The results of a finished run.
struct Results {
  std::string stop_reason;  // "workload-done", "time-limit", "idle" or "deadlock"
  Picoseconds end_time = 0;
  uint64_t events = 0;
  uint64_t packet_hops = 0;
  double wall_seconds = 0;
  std::vector<FlowRecord> flows;             // every message that is not a collective's
  std::map<std::string, uint64_t> counters;  // summary.json "counters"
  std::string results_json;                  // summary.json "results": the headline figures
  std::string summary_json;                  // the whole of summary.json
  std::vector<std::string> warnings;         // "code: sentence", as summary.json's warnings
};

class Simulation {
 public:
  // Loads a scenario file (docs/scenario-format.md) with its includes and overrides. Its
  // "workload" may be left out or make no flow: the traffic may all come from send().
  static Simulation from_file(const std::string& path, const LoadOptions& options = {});
  // Loads a scenario given as JSON text; relative paths in it resolve against `base_dir`.
  static Simulation from_json(const std::string& json, const LoadOptions& options = {},
                              const std::string& base_dir = ".");

  Simulation(Simulation&&) noexcept;
  Simulation& operator=(Simulation&&) noexcept;
  ~Simulation();

  std::string name() const;
  // The hosts (NIC endpoints and GPUs' NVLink endpoints) in host-number order: the names
  // send() and recv() take.
  std::vector<std::string> hosts() const;
  // The GPUs of the scenario's GPU servers (their NVLink endpoints, also among hosts()) in GPU
  // order: server by server, GPU by GPU. A message between two GPUs of one server crosses
  // NVLink; to anything outside its server a GPU's message goes through its NIC (GPUDirect
  // RDMA over the NIC's PCIe path).
  std::vector<std::string> gpus() const;
  Picoseconds now() const;

  // Runs the scenario to its stop condition (its workload done, stop.time, a deadlock) and
  // returns the results: what `rdmasim run` does, writing nothing unless write_outputs() is
  // called. Messages posted before run() are part of the workload.
  Results run();

  // Posts a message of `bytes` from `src` to `dst` now. `on_complete` is called when the
  // sender has seen its last acknowledgement (an RDMA write's completion), with the time it
  // was also delivered. Returns the message's id. Throws InputError for an unknown host, a
  // host sending to itself, hosts the fabric does not connect, or a size outside 1 B..1 TiB.
  uint64_t send(const std::string& src, const std::string& dst, int64_t bytes,
                std::function<void(const Message&)> on_complete = {},
                const MessageOptions& options = {});
  // Waits for a message from `src` to `dst` with `tag`: `on_receive` is called when its last
  // byte has reached `dst` — at once if such a message was delivered before recv() was
  // posted. Messages and receives with the same (src, dst, tag) are matched in order.
  void recv(const std::string& src, const std::string& dst, uint32_t tag,
            std::function<void(const Message&)> on_receive);
  // Calls `callback` after `delay` of simulated time.
  void schedule(Picoseconds delay, std::function<void()> callback);

  // Simulates until `time` (the clock then reads `time`), whatever the scenario's stop.time.
  void run_until(Picoseconds time);
  // Simulates until every message, collective and training step posted so far has completed
  // and no callback of schedule() is pending (callbacks may post more), or until `limit`;
  // returns whether everything completed.
  bool run_until_done(Picoseconds limit = INT64_MAX);

  // The counters now (events, packet hops, packets created, ...).
  std::map<std::string, uint64_t> counters() const;

  // Ends a stepped run and returns its results; the simulation cannot go on afterwards.
  Results finish();
  // Writes the output files of `rdmasim run` (summary.json, flows.csv, links.csv, ...) into
  // `dir` after run() or finish(); each file is written to a temporary name, then renamed.
  void write_outputs(const std::string& dir) const;

 private:
  struct Impl;
  explicit Simulation(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The library's version ("0.1.0").
std::string version();

}  // namespace rdmasim
