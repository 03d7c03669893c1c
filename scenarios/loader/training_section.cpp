#include "scenarios/loader/training_section.hpp"

#include <cmath>

#include "scenarios/loader/collective_section.hpp"
#include "scenarios/loader/quantity_bounds.hpp"
#include "scenarios/loader/rank_endpoints.hpp"

namespace scen {
namespace {

// A compute time: given ("forward": "1ms"), or from FLOPs ("forward_flops": 1e12) at the GPU's
// peak times the efficiency.
sim::Time compute_time(JsonReader& r, const std::string& key, double peak, double efficiency,
                       sim::Time def) {
  const std::string flops_key = key + "_flops";
  if (r.has(flops_key)) {
    if (r.has(key)) {
      throw InputError(r.child_path(flops_key), r.value_text(flops_key),
                       "either \"" + key + "\" or \"" + flops_key + "\", not both");
    }
    const double flops = r.number(flops_key, 0, 0, 1e30);
    if (peak <= 0) {
      throw InputError(r.child_path(flops_key), r.value_text(flops_key),
                       "FLOPs only with the GPU's \"peak_tflops\" set");
    }
    const double ps = flops / (peak * efficiency) * 1e12;
    if (!(ps <= static_cast<double>(kMaxTimePs))) {
      throw InputError(r.child_path(flops_key), r.value_text(flops_key),
                       "FLOPs that take at most 1000000s at the GPU's peak times the efficiency "
                       "(so that every time the simulation forms fits in 64 bits of picoseconds)");
    }
    return sim::Time(static_cast<int64_t>(std::llround(ps)));
  }
  return r.time(key, def, sim::Time(0));
}

models::TrainingLayer read_layer(JsonReader& r, double peak, double efficiency) {
  r.expect_object();
  models::TrainingLayer l;
  l.forward = compute_time(r, "forward", peak, efficiency, sim::Time(0));
  // Backward costs twice the forward unless given (weight and input gradients).
  l.backward = compute_time(r, "backward", peak, efficiency, sim::Time(2 * l.forward.ps));
  l.gradient_bytes = r.bytes("gradients", 0, 0);
  r.finish();
  return l;
}

// A group's collective: the settings of `settings` (an object, or absent) over `ranks`.
models::CollectiveSpec group_collective(const Json* settings, const std::string& path,
                                        const std::vector<std::string>& ranks,
                                        const topo::Fabric& f, const models::NicParams& nic,
                                        const models::QosParams& qos) {
  Json c = settings != nullptr ? *settings : Json::object();
  if (!c.is_object()) throw InputError(path, message_text(c), "an object of collective settings");
  c["ranks"] = ranks;
  JsonReader r(c, path);
  return read_collective(r, f, nic, qos, false);
}

// training.parallel: tensor, pipeline and data-parallel groups over every GPU of the topology,
// in Megatron-LM's rank order (training_spec.hpp, ParallelGroups).
void read_parallel(JsonReader& r, const topo::Fabric& f, const models::NicParams& nic,
                   const models::QosParams& qos, models::TrainingSpec& t) {
  JsonReader par = r.at("parallel");
  par.expect_object();
  models::ParallelGroups& p = t.parallel;
  p.tp = static_cast<int>(par.integer("tp", 1, 1, 4096));
  p.pp = static_cast<int>(par.integer("pp", 1, 1, 4096));
  p.dp = static_cast<int>(par.integer("dp", 1, 1, 1 << 20));
  p.microbatches = static_cast<int>(par.integer("microbatches", 1, 1, 100000));
  par.finish();
  const topo::GpuCluster& gpus = f.topo.gpus;
  const int64_t wanted = static_cast<int64_t>(p.tp) * p.pp * p.dp;
  if (wanted != gpus.gpus()) {
    throw InputError(par.path(),
                     "tp " + std::to_string(p.tp) + " x pp " + std::to_string(p.pp) + " x dp " +
                         std::to_string(p.dp) + " = " + std::to_string(wanted) + " GPUs",
                     "as many GPUs as the topology has (" + std::to_string(gpus.gpus()) +
                         "; GPU servers: topology.nodes)");
  }
  if (gpus.params.gpus % p.tp != 0) {
    throw InputError(par.child_path("tp"), std::to_string(p.tp),
                     "a divisor of a server's " + std::to_string(gpus.params.gpus) +
                         " GPUs (a tensor-parallel group stays inside one server, on NVLink)");
  }
  if (t.layers.size() % static_cast<size_t>(p.pp) != 0) {
    throw InputError(r.child_path("layers"), std::to_string(t.layers.size()) + " layers",
                     "a multiple of pp = " + std::to_string(p.pp) +
                         " (each pipeline stage holds as many layers)");
  }
  if (r.has("comm") && r.at("comm").has("ranks")) {
    throw InputError(r.at("comm").child_path("ranks"), r.at("comm").value_text("ranks"),
                     "no ranks with \"parallel\" (the groups are the parallel layout's)");
  }
  const bool moves = p.tp > 1 || p.pp > 1;
  p.activation_bytes = r.bytes("activations", moves ? -1 : 0, 1);
  if (moves && p.activation_bytes < 0) {
    throw InputError(r.child_path("activations"), "",
                     "one micro-batch's activations in bytes (micro-batch x sequence x hidden x "
                     "element bytes), as \"tp\" or \"pp\" is above 1");
  }
  std::vector<std::string> names;
  for (int g = 0; g < gpus.gpus(); ++g) names.push_back(f.topo.nodes[gpus.nvlink_node[g]].name);
  auto rank = [&p](int s, int d, int tr) { return tr + p.tp * (d + p.dp * s); };
  const Json* tp_comm = r.has("tp_comm") ? &r.at("tp_comm").json() : nullptr;
  if (tp_comm != nullptr && tp_comm->is_object() && tp_comm->contains("ranks")) {
    throw InputError(r.child_path("tp_comm") + ".ranks", message_text(tp_comm->at("ranks")),
                     "no ranks (the tensor-parallel groups are the parallel layout's)");
  }
  const Json* dp_comm = r.has("comm") ? &r.at("comm").json() : nullptr;
  for (int s = 0; s < p.pp; ++s) {
    for (int d = 0; d < p.dp && p.tp > 1; ++d) {
      std::vector<std::string> ranks;
      for (int tr = 0; tr < p.tp; ++tr) ranks.push_back(names[rank(s, d, tr)]);
      p.tensor_groups.push_back(
          group_collective(tp_comm, r.child_path("tp_comm"), ranks, f, nic, qos));
    }
  }
  for (int s = 0; s < p.pp; ++s) {
    for (int tr = 0; tr < p.tp && p.dp > 1; ++tr) {
      std::vector<std::string> ranks;
      for (int d = 0; d < p.dp; ++d) ranks.push_back(names[rank(s, d, tr)]);
      p.data_groups.push_back(group_collective(dp_comm, r.child_path("comm"), ranks, f, nic, qos));
    }
  }
  p.endpoints = rank_endpoints(f, gpus.nvlink_node, t.comm.priority, t.comm.dscp);
}

}  // namespace

std::vector<models::TrainingSpec> read_training_section(JsonReader& w, const topo::Fabric& f,
                                                        const models::NicParams& nic,
                                                        const models::QosParams& qos) {
  std::vector<models::TrainingSpec> out;
  auto sec = w.get("training");
  if (!sec) return out;
  JsonReader& r = *sec;
  r.expect_object();
  models::TrainingSpec t;
  // GPU peak (dense BF16, per GPU): H100 SXM 989 TFLOP/s (NVIDIA H100 datasheet).
  t.peak_flops = r.number("peak_tflops", 0, 0, 1e6) * 1e12;
  const double efficiency = r.number("efficiency", 1.0, 1e-6, 1.0);
  t.model_flops_per_step = r.number("model_flops", 0, 0, 1e30);
  t.bucket_bytes = r.bytes("bucket", t.bucket_bytes, 1);
  t.optimizer = r.time("optimizer", sim::Time(0), sim::Time(0));
  t.overlap = r.boolean("overlap", true);
  t.steps = static_cast<int>(r.integer("steps", 1, 1, 1000));
  t.gpus = static_cast<int>(r.integer("gpus", 0, 0, 1 << 24));
  JsonReader layers = r.at("layers");
  if (layers.json().is_number_integer()) {
    const int64_t count = layers.json().get<int64_t>();
    if (count < 1 || count > 100000) {
      throw InputError(layers.path(), message_text(layers.json()), "a layer count in [1, 100000]");
    }
    JsonReader layer = r.at("layer");
    const models::TrainingLayer l = read_layer(layer, t.peak_flops, efficiency);
    t.layers.assign(static_cast<size_t>(count), l);
  } else {
    layers.expect_array();
    if (layers.size() == 0) throw InputError(layers.path(), "[]", "at least one layer");
    for (size_t i = 0; i < layers.size(); ++i) {
      JsonReader e = layers.element(i);
      t.layers.push_back(read_layer(e, t.peak_flops, efficiency));
    }
  }
  if (r.has("parallel")) {
    // The groups' settings are read with their ranks (read_parallel); here only the
    // template's class and start, over the first two GPUs.
    Json c = r.has("comm") ? r.at("comm").json() : Json::object();
    if (c.is_object() && f.topo.gpus.gpus() >= 2 && !c.contains("ranks")) {
      c["ranks"] = {f.topo.nodes[f.topo.gpus.nvlink_node[0]].name,
                    f.topo.nodes[f.topo.gpus.nvlink_node[1]].name};
    }
    JsonReader comm(c, r.child_path("comm"));
    t.comm = read_collective(comm, f, nic, qos, false);
    read_parallel(r, f, nic, qos, t);
  } else if (r.has("comm")) {
    JsonReader comm = r.at("comm");
    t.comm = read_collective(comm, f, nic, qos, false);
  } else {
    Json empty = Json::object();
    JsonReader comm(empty, r.child_path("comm"));
    t.comm = read_collective(comm, f, nic, qos, false);
  }
  r.finish();
  out.push_back(std::move(t));
  return out;
}

}  // namespace scen
