#include "scenarios/run/split_blockers.hpp"

#include <algorithm>

#include "models/collectives/collective_runner.hpp"
#include "models/training/parallel_step.hpp"
#include "models/training/training_step.hpp"
#include "models/workloads/chakra_spec.hpp"
#include "sim/simulator.hpp"

namespace scen {

namespace {

// What of a collective's calls of `sizes` a split run cannot run yet (ARCHITECTURE.md,
// "Partitions"). Calls of schedule algorithms run rank by rank (each rank's next call follows
// its own end, where it is); in-network calls start for every rank at once, at a boundary
// event, at least a window after the end that any partition may find. Sizes of a sweep start
// for every rank at once after size_gap.
std::string collective_split_blocker(const models::CollectiveSpec& c,
                                     const std::vector<int64_t>& sizes) {
  for (const int64_t size : sizes) {
    if (c.iterations > 1 && !models::rank_paced(c, size) &&
        models::call_launch_latency(c, size) < sim::Simulator::kStopGrace) {
      return "in-network collective iterations above 1 with a launch latency below 1 us (the "
             "next iteration posts on every rank then)";
    }
  }
  if (sizes.size() > 1 && c.size_gap < sim::Simulator::kStopGrace) {
    return "a collective size_gap below 1 us (the next size starts on every rank then)";
  }
  return "";
}

// Training with tensor, pipeline and data-parallel groups (parallel_step.hpp): each replica's
// program runs where its GPU server is, its tensor group's all-reduces there too (schedule
// algorithms, or NVLS on the server's NVSwitch); each GPU joins its data group's bucket all-reduces
// where it is (calls of a schedule algorithm); a group's optimizer, and the step's end, are
// boundary events at least a window after the last bucket's end.
std::string parallel_split_blocker(const models::TrainingSpec& t) {
  const models::ParallelGroups& p = t.parallel;
  // (The loader keeps a tensor group inside one GPU server: scenarios/loader/training_section.)
  for (const models::CollectiveSpec& g : p.tensor_groups) {
    models::CollectiveSpec c = g;
    c.op = models::CollectiveOp::AllReduce;
    if (!models::rank_paced(c, p.activation_bytes) &&
        models::resolve_algorithm(c, p.activation_bytes) != models::CollectiveAlgorithm::Nvls) {
      return "tensor-parallel all-reduces with an in-network algorithm other than NVLS (its "
             "switches are not the server's)";
    }
  }
  if (p.dp > 1) {
    for (const models::CollectiveSpec& g : p.data_groups) {
      models::CollectiveSpec c = g;
      c.op = models::CollectiveOp::AllReduce;
      for (const std::vector<int64_t>& stage : models::stage_gradient_buckets(t)) {
        for (const int64_t size : stage) {
          if (!models::rank_paced(c, size)) {
            return "data-parallel all-reduces with an in-network algorithm in tensor or "
                   "pipeline parallel training (each GPU joins them where it is)";
          }
        }
      }
    }
  }
  if (t.optimizer < sim::Simulator::kStopGrace) {
    return "a training optimizer step below 1 us in tensor or pipeline parallel training (it "
           "follows the end of a group's last bucket, and ends the step for every replica)";
  }
  return "";
}

// A data-parallel training step: its compute phases are boundary events; what follows the
// end of the last all-reduce (the optimizer) must be at least a window later, for that end is
// found within a window. Rank-paced all-reduces are asked for at those boundary events; an
// in-network one follows the end of the one before on every rank.
std::string training_split_blocker(const models::TrainingSpec& t) {
  if (t.parallel.enabled()) return parallel_split_blocker(t);
  if (t.optimizer.ps > 0 && t.optimizer < sim::Simulator::kStopGrace) {
    return "a training optimizer step below 1 us (it starts when the last all-reduce ends)";
  }
  // The next step's first bucket is asked for at once after the optimizer, the forward and
  // the last layer's backward: a boundary event only when they take some time.
  sim::Time restart = t.optimizer;
  for (const models::TrainingLayer& l : t.layers) restart += l.forward;
  if (!t.layers.empty()) restart += t.layers.back().backward;
  if (t.steps > 1 && restart < sim::Simulator::kStopGrace) {
    return "training steps whose optimizer, forward and last layer's backward take less than "
           "1 us together (the next step's first bucket follows the last all-reduce's end)";
  }
  models::CollectiveSpec comm = t.comm;
  comm.op = models::CollectiveOp::AllReduce;
  const std::vector<int64_t> buckets = models::gradient_buckets(t);
  bool rank_paced = true;
  for (const int64_t size : buckets) rank_paced = rank_paced && models::rank_paced(comm, size);
  if (rank_paced) return "";
  for (const int64_t size : buckets) {
    if (models::call_launch_latency(comm, size) < sim::Simulator::kStopGrace) {
      return "a training all-reduce with an in-network algorithm and a launch latency below "
             "1 us (the next bucket's posts follow the last one's end then)";
    }
  }
  return "";
}

}  // namespace

// What a split run cannot run yet: parts of the model that act on several partitions' nodes
// at once within a window (global handlers, or direct calls across partitions). Each needs its
// own step (issue "Speed"; ARCHITECTURE.md, "Partitions").
std::string split_blockers(const Scenario& s) {
  std::vector<std::string> parts;
  // Chakra: each rank's nodes run where it is; a gated group's collectives each rank joins
  // where it is; a group that reduces in the network starts its collectives for every member
  // at once, once the last has reached it: where they all are (NVLS inside one GPU server).
  for (const models::ChakraSpec& c : s.chakra) {
    bool in_network = false;
    for (const models::ChakraCollective& coll : c.collectives) {
      models::CollectiveSpec g = c.groups[coll.group];
      g.op = coll.op;
      if (models::rank_paced(g, coll.bytes)) continue;
      const bool one_server =
          !g.rank_server.empty() && g.rank_server.front() >= 0 &&
          std::all_of(g.rank_server.begin(), g.rank_server.end(),
                      [&](int server) { return server == g.rank_server.front(); });
      in_network = in_network || !(one_server && models::resolve_algorithm(g, coll.bytes) ==
                                                     models::CollectiveAlgorithm::Nvls);
    }
    if (in_network) {
      parts.push_back(
          "Chakra collectives with an in-network algorithm other than NVLS inside one server "
          "(they start for every member at once)");
      break;
    }
  }
  for (const models::TrainingSpec& t : s.training) {
    std::string c = training_split_blocker(t);
    if (!c.empty()) {
      parts.push_back(std::move(c));
      break;
    }
  }
  for (const models::CollectiveSpec& spec : s.collectives) {
    std::string c = collective_split_blocker(spec, models::sweep_sizes(spec));
    if (!c.empty()) {
      parts.push_back(std::move(c));
      break;
    }
  }
  std::string text;
  for (const std::string& p : parts) text += (text.empty() ? "" : "; ") + p;
  return text;
}

std::string rank_blockers(const Scenario& s) {
  // What runs split on threads runs over processes too: a schedule algorithm's calls rank by
  // rank (rank_calls_processes.cpp), SHARP's and NVLS's hosts each where they are, their ends
  // told (models/sharp/sharp_processes.cpp), NVLS-tree's and CollNet's messages where their
  // GPUs are, what they add to the call told (models/collectives/in_network_processes.cpp);
  // data-parallel training's compute phases and buckets asked for at boundary events, which
  // every process runs; tensor, pipeline and data groups as split
  // (parallel_step_processes.cpp); Chakra's ranks where they are (chakra_run_processes.cpp).
  return split_blockers(s);
}

}  // namespace scen
