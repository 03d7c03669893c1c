// Running the rdmasim binary from tests, as a user would: arguments quoted, stdout and stderr
// captured, the exit code kept.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "temp_dir.hpp"

namespace test_support {

struct Run {
  int exit_code = -1;  // -1 unless the process exited normally
  std::string out, err;
};

// Runs `rdmasim <args...>` with its working directory in `dir` and `env` ("K=V ...") set.
inline Run rdmasim(const std::vector<std::string>& args, const TempDir& dir,
                   const std::string& env = "") {
  const std::filesystem::path out = dir / ".stdout", err = dir / ".stderr";
  std::string cmd = "cd " + shell_quote(dir.path().string()) + " && " + env + " exec " +
                    shell_quote(RDMASIM_BIN_DIR "/rdmasim");
  for (const auto& a : args) cmd += " " + shell_quote(a);
  cmd += " </dev/null >" + shell_quote(out.string()) + " 2>" + shell_quote(err.string());
  const int status = std::system(cmd.c_str());
  Run r;
  if (status != -1 && WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  r.out = read_file(out);
  r.err = read_file(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

// Runs `sh -c cmd` in `dir`, capturing stdout and stderr; the exit code kept.
inline Run shell(const std::string& cmd, const TempDir& dir) {
  const std::string full =
      "cd " + shell_quote(dir.path().string()) + " && (" + cmd + ") </dev/null >.out 2>.err";
  const int status = std::system(full.c_str());
  Run r;
  if (status != -1 && WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  r.out = read_file(dir / ".out");
  r.err = read_file(dir / ".err");
  return r;
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

inline bool contains(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

// Open MPI was there at build time (rdmasim_rank_ring; rdmasim run under mpirun) and mpirun is
// on the path; else says the test is skipped.
inline bool mpi_runs() {
#ifndef RDMASIM_HAVE_MPI_RANKS
  std::printf("SKIPPED: built without Open MPI (libopenmpi-dev)\n");
  return false;
#else
  if (std::system("command -v mpirun >/dev/null 2>&1") == 0) return true;
  std::printf("SKIPPED: mpirun not found (openmpi-bin)\n");
  return false;
#endif
}

// `processes` processes under mpirun: as root (CI containers) Open MPI needs consent; no
// shared-memory single copy in containers; MPI's own allocations are not ours to leak-check (the
// sanitizer pass). Processes that wait for each other for ever (a message taken for the wrong
// exchange) fail the test after 5 minutes (exit code 124) instead of holding CI to its limit.
inline std::string mpirun(int processes) {
  return "timeout 300 env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun "
         "--oversubscribe -np " +
         std::to_string(processes) +
         " --mca btl_vader_single_copy_mechanism none -x ASAN_OPTIONS=detect_leaks=0 ";
}

}  // namespace test_support
