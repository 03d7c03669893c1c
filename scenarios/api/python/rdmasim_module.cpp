// The Python module `rdmasim` (pybind11): the library API (rdmasim/simulation.hpp) with
// Python callables as callbacks, results as dicts and column lists (pandas.DataFrame takes
// them as they are), and rdmasim.InputError for refused input. docs/library.md, "Python".
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <rdmasim/simulation.hpp>

namespace py = pybind11;

namespace {

rdmasim::LoadOptions load_options(const std::vector<std::string>& sets,
                                  std::optional<uint64_t> seed, const std::string& fabric,
                                  int64_t max_memory_bytes) {
  rdmasim::LoadOptions o;
  o.sets = sets;
  o.seed = seed;
  o.fabric = fabric;
  o.max_memory_bytes = max_memory_bytes;
  return o;
}

rdmasim::Transport transport_named(const std::string& name) {
  if (name == "fabric") return rdmasim::Transport::Fabric;
  if (name == "rdma") return rdmasim::Transport::Rdma;
  if (name == "tcp") return rdmasim::Transport::Tcp;
  throw rdmasim::InputError("send.transport: got " + name +
                            "; expected \"fabric\", \"rdma\" or \"tcp\"");
}

py::object json_loads(const std::string& text) {
  return py::module_::import("json").attr("loads")(text);
}

py::dict flow_dict(const rdmasim::FlowRecord& f) {
  py::dict d;
  d["id"] = f.id;
  d["tag"] = f.tag;
  d["src"] = f.src;
  d["dst"] = f.dst;
  d["bytes"] = f.bytes;
  d["priority"] = f.priority;
  d["completed"] = f.completed;
  d["start_ps"] = f.start;
  d["finish_ps"] = f.finish;
  d["fct_ps"] = f.fct;
  d["ideal_fct_ps"] = f.ideal_fct;
  d["retransmitted_packets"] = f.retransmitted_packets;
  d["timeouts"] = f.timeouts;
  return d;
}

// The flows as columns: {"id": [...], "fct_ps": [...], ...}, the shape pandas.DataFrame takes.
py::dict flow_columns(const rdmasim::Results& r) {
  py::dict columns;
  const char* names[] = {"id",        "tag",      "src",          "dst",
                         "bytes",     "priority", "completed",    "start_ps",
                         "finish_ps", "fct_ps",   "ideal_fct_ps", "retransmitted_packets",
                         "timeouts"};
  for (const char* n : names) columns[n] = py::list();
  for (const auto& f : r.flows) {
    py::dict d = flow_dict(f);
    for (const char* n : names) columns[n].cast<py::list>().append(d[n]);
  }
  return columns;
}

}  // namespace

PYBIND11_MODULE(rdmasim, m) {
  m.doc() =
      "rdmasim: a packet-level simulator of GPU cluster fabrics (InfiniBand, RoCEv2), as a "
      "library. Times are integers in picoseconds (NS, US, MS convert).";
  m.attr("__version__") = rdmasim::version();
  m.attr("NS") = rdmasim::kNanosecond;
  m.attr("US") = rdmasim::kMicrosecond;
  m.attr("MS") = rdmasim::kMillisecond;
  py::register_exception<rdmasim::InputError>(m, "InputError", PyExc_ValueError);

  py::class_<rdmasim::Message>(m, "Message", "A message posted by send(), as its callbacks see it.")
      .def_readonly("id", &rdmasim::Message::id)
      .def_readonly("src", &rdmasim::Message::src)
      .def_readonly("dst", &rdmasim::Message::dst)
      .def_readonly("bytes", &rdmasim::Message::bytes)
      .def_readonly("tag", &rdmasim::Message::tag)
      .def_readonly("posted", &rdmasim::Message::posted)
      .def_readonly("delivered", &rdmasim::Message::delivered)
      .def_readonly("completed", &rdmasim::Message::completed)
      .def("__repr__", [](const rdmasim::Message& msg) {
        return "<rdmasim.Message " + std::to_string(msg.id) + " " + msg.src + "->" + msg.dst + " " +
               std::to_string(msg.bytes) + " B>";
      });

  py::class_<rdmasim::Results>(m, "Results", "The results of a finished run.")
      .def_readonly("stop_reason", &rdmasim::Results::stop_reason)
      .def_readonly("end_time", &rdmasim::Results::end_time)
      .def_readonly("events", &rdmasim::Results::events)
      .def_readonly("packet_hops", &rdmasim::Results::packet_hops)
      .def_readonly("wall_seconds", &rdmasim::Results::wall_seconds)
      .def_readonly("counters", &rdmasim::Results::counters)
      .def_readonly("warnings", &rdmasim::Results::warnings)
      .def_property_readonly(
          "results", [](const rdmasim::Results& r) { return json_loads(r.results_json); },
          "summary.json's \"results\" (the headline figures) as a dict")
      .def_property_readonly(
          "summary", [](const rdmasim::Results& r) { return json_loads(r.summary_json); },
          "the whole of summary.json as a dict")
      .def_property_readonly(
          "flows",
          [](const rdmasim::Results& r) {
            py::list l;
            for (const auto& f : r.flows) l.append(flow_dict(f));
            return l;
          },
          "flows.csv's rows as dicts")
      .def("flow_columns", &flow_columns,
           "the flows as a dict of columns (lists): pandas.DataFrame(r.flow_columns())");

  py::class_<rdmasim::Simulation>(m, "Simulation",
                                  "A scenario loaded, to run at once or step by step.")
      .def_static(
          "from_file",
          [](const std::string& path, const std::vector<std::string>& sets,
             std::optional<uint64_t> seed, const std::string& fabric, int64_t max_memory_bytes) {
            return rdmasim::Simulation::from_file(
                path, load_options(sets, seed, fabric, max_memory_bytes));
          },
          py::arg("path"), py::arg("sets") = std::vector<std::string>{},
          py::arg("seed") = py::none(), py::arg("fabric") = "", py::arg("max_memory_bytes") = 0,
          "Load a scenario file; sets: [\"path.to.key=value\", ...] as rdmasim run --set")
      .def_static(
          "from_json",
          [](const std::string& text, const std::vector<std::string>& sets,
             std::optional<uint64_t> seed, const std::string& fabric, int64_t max_memory_bytes,
             const std::string& base_dir) {
            return rdmasim::Simulation::from_json(
                text, load_options(sets, seed, fabric, max_memory_bytes), base_dir);
          },
          py::arg("text"), py::arg("sets") = std::vector<std::string>{},
          py::arg("seed") = py::none(), py::arg("fabric") = "", py::arg("max_memory_bytes") = 0,
          py::arg("base_dir") = ".", "Load a scenario given as JSON text")
      .def_property_readonly("name", &rdmasim::Simulation::name)
      .def("hosts", &rdmasim::Simulation::hosts, "the host names, in host-number order")
      .def("gpus", &rdmasim::Simulation::gpus,
           "the GPUs of the GPU servers, in GPU order (send() takes them as hosts)")
      .def_property_readonly("now", &rdmasim::Simulation::now, "the simulated time, in ps")
      .def("run", &rdmasim::Simulation::run,
           "run to the stop condition, as rdmasim run does; returns Results")
      .def(
          "send",
          [](rdmasim::Simulation& s, const std::string& src, const std::string& dst, int64_t bytes,
             std::function<void(const rdmasim::Message&)> on_complete, std::optional<int> priority,
             int qps, const std::string& transport, uint32_t tag) {
            rdmasim::MessageOptions o;
            o.priority = priority;
            o.qps = qps;
            o.transport = transport_named(transport);
            o.tag = tag;
            return s.send(src, dst, bytes, std::move(on_complete), o);
          },
          py::arg("src"), py::arg("dst"), py::arg("bytes"), py::arg("on_complete") = nullptr,
          py::arg("priority") = py::none(), py::arg("qps") = 1, py::arg("transport") = "fabric",
          py::arg("tag") = 0,
          "post a message now; on_complete(message) when the sender has its last "
          "acknowledgement; returns its id")
      .def("recv", &rdmasim::Simulation::recv, py::arg("src"), py::arg("dst"), py::arg("tag"),
           py::arg("on_receive"),
           "on_receive(message) once a message src->dst with tag has been delivered")
      .def("schedule", &rdmasim::Simulation::schedule, py::arg("delay"), py::arg("callback"),
           "call callback() after delay ps of simulated time")
      .def("run_until", &rdmasim::Simulation::run_until, py::arg("time"),
           "simulate until time (ps)")
      .def("run_until_done", &rdmasim::Simulation::run_until_done,
           py::arg("limit") = rdmasim::Picoseconds{INT64_MAX},
           "simulate until everything posted has completed (or limit); returns whether it has")
      .def("counters", &rdmasim::Simulation::counters, "the counters now, as a dict")
      .def("finish", &rdmasim::Simulation::finish, "end a stepped run; returns Results")
      .def("write_outputs", &rdmasim::Simulation::write_outputs, py::arg("dir"),
           "write rdmasim run's output files into dir (after run() or finish())");
}
