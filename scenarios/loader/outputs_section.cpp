#include "scenarios/loader/outputs_section.hpp"

#include <string>

#include "sim/units.hpp"

namespace scen {

void read_outputs(JsonReader& r, Scenario& s) {
  r.expect_object();
  if (auto ts = r.get("timeseries")) {
    ts->expect_object();
    s.has_timeseries = true;
    s.timeseries.interval = ts->time("interval", s.timeseries.interval, sim::Time(1));
    if (!ts->has("ports") && !ts->has("flows")) {
      throw InputError(ts->path(), message_text(ts->json()),
                       "\"ports\" and/or \"flows\" to sample");
    }
    if (auto flows = ts->get("flows")) {
      flows->expect_array();
      for (size_t i = 0; i < flows->size(); ++i) {
        const Json& v = flows->json()[i];
        if (!v.is_number_integer() || v.get<int64_t>() < 0 ||
            v.get<int64_t>() >= static_cast<int64_t>(s.flows.size())) {
          throw InputError(flows->index_path(i), message_text(v),
                           "a flow id in [0, " + std::to_string(s.flows.size()) +
                               ") (flows are numbered in flows.csv order)");
        }
        s.timeseries.flows.push_back(v.get<uint32_t>());
      }
    }
    static const Json kNoPorts = Json::array();
    auto ports_reader = ts->get("ports");
    JsonReader ports = ports_reader ? *ports_reader : JsonReader(kNoPorts, ts->path());
    ports.expect_array();
    for (size_t i = 0; i < ports.size(); ++i) {
      const Json& v = ports.json()[i];
      if (!v.is_string())
        throw InputError(ports.index_path(i), message_text(v), "\"switch:port\" or a host name");
      const std::string text = v.get<std::string>();
      TimeseriesSpec::PortRef ref;
      ref.label = text;
      const auto colon = text.find(':');
      ref.node = s.fabric.node_by_name(text.substr(0, colon));
      if (ref.node < 0)
        throw InputError(ports.index_path(i), message_text(v), "\"switch:port\" or a host name");
      if (colon != std::string::npos) {
        try {
          ref.port = std::stoi(text.substr(colon + 1));
        } catch (const std::exception&) {
          ref.port = -1;
        }
      }
      if (ref.port < 0 || ref.port >= static_cast<int>(s.fabric.ports[ref.node].size())) {
        throw InputError(ports.index_path(i), message_text(v),
                         "a port of " + text.substr(0, colon) + " in [0, " +
                             std::to_string(s.fabric.ports[ref.node].size() - 1) + "]");
      }
      s.timeseries.ports.push_back(ref);
    }
    ts->finish();
  }
  if (r.has("fct_by_size")) {
    // true: decades from 10 KB to 10 MB (WebSearch's sizes span 1 KB to 30 MB); or a list of
    // increasing upper edges.
    const Json& v = r.json()["fct_by_size"];
    if (v.is_boolean()) {
      if (r.boolean("fct_by_size", false)) {
        s.fct_size_edges = {10'000, 100'000, 1'000'000, 10'000'000};
      }
    } else {
      JsonReader edges = r.at("fct_by_size");
      edges.expect_array();
      for (size_t i = 0; i < edges.size(); ++i) {
        const Json& e = v[i];
        int64_t b = 0;
        try {
          b = e.is_number_integer() ? e.get<int64_t>() : sim::parse_bytes(e.get<std::string>());
        } catch (const std::exception&) {
          b = 0;
        }
        if (b <= 0 || (!s.fct_size_edges.empty() && b <= s.fct_size_edges.back())) {
          throw InputError(edges.index_path(i), message_text(e),
                           "a size such as \"100KB\", above the previous edge (increasing upper "
                           "edges of the size buckets)");
        }
        s.fct_size_edges.push_back(b);
      }
    }
  }
  r.finish();
}

}  // namespace scen
