// Runs one of rdmasim's Python scripts (tools/plot.py, tools/report.py) with the interpreter
// Debian's python3-matplotlib installs for.
#pragma once

#include <string>
#include <vector>

namespace cli {

// RDMASIM_PYTHON when set; else /usr/bin/python3 when it exists (a python3 earlier on PATH — a
// virtualenv, pyenv — may not see Debian's packages); else python3 from PATH.
std::string python_interpreter();

// The script `env_override` names when that environment variable is set, else `fallback`.
std::string script_path(const char* env_override, const std::string& fallback);

// Runs `script` with `args` and waits; returns the script's exit code when it is 0 (ok) or 2
// (bad input, the script has said why), kInternal otherwise (it could not run, crashed, or
// exited 1: matplotlib missing, the script has said so).
int run_python_script(const std::string& command, const std::string& script,
                      const std::vector<std::string>& args);

}  // namespace cli
