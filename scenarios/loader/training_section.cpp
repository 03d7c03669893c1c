#include "scenarios/loader/training_section.hpp"

#include <cmath>

#include "scenarios/loader/collective_section.hpp"

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
    return sim::Time(static_cast<int64_t>(std::llround(flops / (peak * efficiency) * 1e12)));
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
      throw InputError(layers.path(), layers.json().dump(), "a layer count in [1, 100000]");
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
  if (r.has("comm")) {
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
