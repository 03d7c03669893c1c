#include "tools/cli/python_script.hpp"

#include <spawn.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "tools/cli/commands.hpp"

extern char** environ;

namespace cli {

std::string python_interpreter() {
  const char* env_python = std::getenv("RDMASIM_PYTHON");
  if (env_python != nullptr && *env_python != '\0') return env_python;
  return std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
}

std::string script_path(const char* env_override, const std::string& fallback) {
  const char* env = std::getenv(env_override);
  return env != nullptr && *env != '\0' ? env : fallback;
}

int run_python_script(const std::string& command, const std::string& script,
                      const std::vector<std::string>& args) {
  const std::string python = python_interpreter();
  std::vector<std::string> argv = {python, script};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargs;
  for (auto& a : argv) cargs.push_back(a.data());
  cargs.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawnp(&pid, python.c_str(), nullptr, nullptr, cargs.data(), environ) != 0) {
    std::cerr << "rdmasim " << command << ": cannot run " << python
              << " (Debian: apt-get install python3 python3-matplotlib)\n";
    return kInternal;
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status)) return kInternal;
  // The scripts speak the same exit codes: 0 ok, 1 matplotlib missing, 2 bad input.
  const int code = WEXITSTATUS(status);
  return code == kOk || code == kBadInput ? code : kInternal;
}

}  // namespace cli
