// Reading a trace file: the content says which tool wrote it.
#include <fstream>
#include <sstream>

#include "scenarios/loader/input_error.hpp"
#include "scenarios/traces/trace.hpp"

namespace traces {

Trace read_trace_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw scen::InputError(path, "", "a readable trace file (perftest or nccl-tests output)");
  std::ostringstream s;
  s << in.rdbuf();
  const std::string text = s.str();
  Trace t;
  // perftest's tables start with "#bytes"; nccl-tests' with "#  size  count" (or "# nThread").
  if (text.find("#bytes") != std::string::npos) {
    t.kind = TraceKind::Perftest;
    t.perftest = parse_perftest(text, path);
  } else if (text.find("nThread") != std::string::npos ||
             text.find("out-of-place") != std::string::npos) {
    t.kind = TraceKind::NcclTests;
    t.nccl = parse_nccl_tests(text, path);
  } else {
    throw scen::InputError(path + ":1", "unrecognised content",
                           "perftest output (a \"#bytes\" table) or nccl-tests output (\"# "
                           "nThread ...\" and an out-of-place/in-place table)");
  }
  return t;
}

}  // namespace traces
