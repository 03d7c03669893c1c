// The process's log: messages by level to stderr and, when asked, to a file (spdlog behind
// sim/logging.cpp, the only file that includes it). The CLI sets it up from --log-level and
// --log-file; by default warnings and errors reach stderr and nothing else does. Results never
// go through it: they are the outputs' (summary.json's `warnings` lists a run's warnings too).
#pragma once

#include <string>
#include <string_view>

namespace sim {

enum class LogLevel { Trace, Debug, Info, Warn, Error, Off };

// "trace", "debug", "info", "warn" (or "warning"), "error", "off"; false for anything else.
bool parse_log_level(std::string_view text, LogLevel& out);
const char* to_string(LogLevel level);

// Messages at `level` and above go to stderr; with a non-empty `file`, every message at
// `level` and above also goes there (appended, one timestamped line each). Throws
// std::runtime_error when the file cannot be opened.
void configure_logging(LogLevel level, const std::string& file = "");
// Back to the default (warnings and errors on stderr, no file).
void reset_logging();

bool log_enabled(LogLevel level);
void log_message(LogLevel level, std::string_view message);
inline void log_debug(std::string_view m) {
  log_message(LogLevel::Debug, m);
}
inline void log_info(std::string_view m) {
  log_message(LogLevel::Info, m);
}
inline void log_warn(std::string_view m) {
  log_message(LogLevel::Warn, m);
}

}  // namespace sim
