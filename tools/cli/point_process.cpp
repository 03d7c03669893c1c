#include "tools/cli/point_process.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "scenarios/sweep/point_store.hpp"

extern char** environ;

namespace cli {

namespace {

std::string signal_text(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  const char* description = sigdescr_np(sig);
  std::string text = "signal " + std::to_string(sig);
  if (abbrev != nullptr) text += std::string(" (SIG") + abbrev;
  if (abbrev != nullptr && description != nullptr) text += std::string(": ") + description;
  if (abbrev != nullptr) text += ")";
  return text;
}

}  // namespace

std::optional<scen::Json> run_point_in_child(const std::string& exe, const std::string& sweep_file,
                                             const scen::sweep::SweepSpec& spec,
                                             const scen::sweep::SweepPoint& p,
                                             const std::string& out_dir) {
  std::vector<std::string> args = {exe,
                                   "sweep",
                                   sweep_file,
                                   "--out",
                                   out_dir,
                                   "--point",
                                   std::to_string(p.id),
                                   "--parent",
                                   std::to_string(::getpid()),
                                   "-q"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, exe.c_str(), nullptr, nullptr, argv.data(), environ);
  if (spawned != 0) {
    throw std::runtime_error("cannot start a process for point " + std::to_string(p.id) + ": " +
                             std::strerror(spawned));
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      throw std::runtime_error("waiting for point " + std::to_string(p.id) + ": " +
                               std::strerror(errno));
    }
  }
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) return std::nullopt;
    return scen::sweep::record_failed_point(spec, p, out_dir,
                                            "crashed: the point's process was killed by " +
                                                signal_text(sig) +
                                                (WCOREDUMP(status) ? ", core dumped" : ""));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    if (auto record = scen::sweep::read_record(spec, p, out_dir)) return record;
    return scen::sweep::record_failed_point(spec, p, out_dir,
                                            "internal error: the point's process exited without "
                                            "committing its record");
  }
  return std::nullopt;
}

}  // namespace cli
