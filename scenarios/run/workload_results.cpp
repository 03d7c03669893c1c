#include "scenarios/run/workload_results.hpp"

#include <algorithm>

#include "scenarios/run/percentiles.hpp"

namespace scen {

void add_workload_results(const Scenario& s,
                          const std::vector<std::unique_ptr<models::CollectiveRunner>>& collectives,
                          const std::vector<std::unique_ptr<models::TrainingRunner>>& training,
                          RunOutcome& out, Json& res) {
  for (const auto& c : collectives) {
    out.collectives.insert(out.collectives.end(), c->results().begin(), c->results().end());
  }
  for (const auto& t : training) {
    for (const auto& r : t->results()) out.training_steps.push_back(r);
    out.training_all_reduces.insert(out.training_all_reduces.end(), t->all_reduces().begin(),
                                    t->all_reduces().end());
  }
  if (!out.training_steps.empty()) {
    // The last step: step time, exposed communication and MFU (3 decimals of a percent).
    const models::TrainingStepResult& t = out.training_steps.back();
    res["training"] = {{"steps", out.training_steps.size()},
                       {"step_time_us", milli_number(t.step.ps / 1000)},
                       {"compute_us", milli_number(t.compute.ps / 1000)},
                       {"communication_us", milli_number(t.communication.ps / 1000)},
                       {"exposed_communication_us", milli_number(t.exposed.ps / 1000)},
                       {"last_bucket_tail_us", milli_number(t.last_bucket_tail.ps / 1000)},
                       {"buckets", t.buckets},
                       {"mfu_percent", milli_number(static_cast<int64_t>(t.mfu * 100000))}};
    if (!t.groups.empty()) {
      // Tensor/pipeline/data parallel: the pipeline's bubble and each kind of group's share.
      res["training"]["pipeline_bubble_us"] = milli_number(t.bubble.ps / 1000);
      Json groups = Json::object();
      for (const models::ParallelGroupResult& g : t.groups) {
        groups[g.kind] = {
            {"groups", g.groups},
            {"ranks", g.ranks},
            {"calls_per_gpu", milli_number(static_cast<int64_t>(g.calls * 1000))},
            {"bytes_per_gpu", static_cast<int64_t>(g.bytes)},
            {"communication_us", milli_number(g.communication.ps / 1000)},
            {"wait_us", milli_number(g.wait.ps / 1000)},
            {"mfu_without_percent", milli_number(static_cast<int64_t>(g.mfu_without * 100000))}};
      }
      res["training"]["groups"] = groups;
    }
    if (out.training_steps.size() >= 2) {
      // Several steps: their distribution (a job's step time is set by its slowest steps,
      // e.g. under another tenant's traffic). Jitter: p99 - p50.
      std::vector<int64_t> steps;
      for (const auto& r : out.training_steps) steps.push_back(r.step.ps);
      const int64_t p50 = nearest_rank(steps, 50), p99 = nearest_rank(steps, 99);
      res["training"]["step_time_p50_us"] = milli_number(p50 / 1000);
      res["training"]["step_time_p99_us"] = milli_number(p99 / 1000);
      res["training"]["step_time_min_us"] = milli_number(nearest_rank(steps, 1) / 1000);
      res["training"]["step_time_max_us"] = milli_number(nearest_rank(steps, 100) / 1000);
      res["training"]["step_time_jitter_us"] = milli_number((p99 - p50) / 1000);
    }
  }
  if (!s.collectives.empty()) {
    size_t sizes = 0;
    for (const auto& c : s.collectives) sizes += models::sweep_sizes(c).size();
    res["collective_sizes"] = sizes;
    res["collective_sizes_completed"] = out.collectives.size();
    if (!out.collectives.empty()) {
      // The largest size run (the last row): what a sweep over sizes or fabrics plots.
      const models::CollectiveResult& last = out.collectives.back();
      res["collective"] = {
          {"size_bytes", last.size_bytes},
          {"time_us", milli_number(last.time.ps / 1000)},
          {"algbw_GBps", milli_number(static_cast<int64_t>(last.algbw_gbps() * 1000))},
          {"busbw_GBps", milli_number(static_cast<int64_t>(last.busbw_gbps() * 1000))}};
    }
  }
}

void add_chakra_results(const std::vector<std::unique_ptr<models::ChakraRunner>>& chakra,
                        RunOutcome& out, Json& res) {
  for (const auto& c : chakra) {
    out.chakra_ranks.insert(out.chakra_ranks.end(), c->results().begin(), c->results().end());
    out.chakra_collectives.insert(out.chakra_collectives.end(), c->collective_rows().begin(),
                                  c->collective_rows().end());
  }
  if (chakra.empty()) return;
  int64_t slowest = 0, compute = 0, exposed = 0;
  size_t finished = 0;
  for (const models::ChakraRankResult& r : out.chakra_ranks) {
    slowest = std::max(slowest, r.iteration.ps);
    compute += r.compute.ps;
    exposed += r.exposed.ps;
    finished += r.iteration.ps > 0 || r.nodes == 0;
  }
  const auto n = static_cast<int64_t>(std::max<size_t>(1, out.chakra_ranks.size()));
  res["chakra"] = {{"ranks", out.chakra_ranks.size()},
                   {"ranks_finished", finished},
                   {"iteration_time_us", milli_number(slowest / 1000)},
                   {"compute_mean_us", milli_number(compute / n / 1000)},
                   {"exposed_communication_mean_us", milli_number(exposed / n / 1000)},
                   {"collectives", out.chakra_collectives.size()}};
}

}  // namespace scen
