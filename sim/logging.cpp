#include "sim/logging.hpp"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <stdexcept>

namespace sim {
namespace {

spdlog::level::level_enum spd(LogLevel l) {
  switch (l) {
    case LogLevel::Trace:
      return spdlog::level::trace;
    case LogLevel::Debug:
      return spdlog::level::debug;
    case LogLevel::Info:
      return spdlog::level::info;
    case LogLevel::Warn:
      return spdlog::level::warn;
    case LogLevel::Error:
      return spdlog::level::err;
    case LogLevel::Off:
      break;
  }
  return spdlog::level::off;
}

// The process's logger: made on first use (stderr at warn) or by configure_logging.
std::shared_ptr<spdlog::logger>& logger() {
  static std::shared_ptr<spdlog::logger> l;
  return l;
}

std::shared_ptr<spdlog::logger> make_logger(LogLevel level, const std::string& file) {
  auto console = std::make_shared<spdlog::sinks::stderr_sink_st>();
  console->set_pattern("rdmasim: %l: %v");
  std::vector<spdlog::sink_ptr> sinks{console};
  if (!file.empty()) {
    try {
      auto f = std::make_shared<spdlog::sinks::basic_file_sink_st>(file, /*truncate=*/false);
      f->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%l] %v");
      sinks.push_back(f);
    } catch (const spdlog::spdlog_ex& e) {
      throw std::runtime_error("cannot open log file " + file + ": " + e.what());
    }
  }
  auto l = std::make_shared<spdlog::logger>("rdmasim", sinks.begin(), sinks.end());
  l->set_level(spd(level));
  l->flush_on(spdlog::level::trace);  // a line is on disk when logged (a crash loses none)
  return l;
}

spdlog::logger& current() {
  auto& l = logger();
  if (!l) l = make_logger(LogLevel::Warn, "");
  return *l;
}

}  // namespace

bool parse_log_level(std::string_view text, LogLevel& out) {
  static constexpr std::pair<std::string_view, LogLevel> kNames[] = {
      {"trace", LogLevel::Trace}, {"debug", LogLevel::Debug},  {"info", LogLevel::Info},
      {"warn", LogLevel::Warn},   {"warning", LogLevel::Warn}, {"error", LogLevel::Error},
      {"off", LogLevel::Off}};
  for (const auto& [name, level] : kNames) {
    if (text == name) {
      out = level;
      return true;
    }
  }
  return false;
}

const char* to_string(LogLevel level) {
  switch (level) {
    case LogLevel::Trace:
      return "trace";
    case LogLevel::Debug:
      return "debug";
    case LogLevel::Info:
      return "info";
    case LogLevel::Warn:
      return "warn";
    case LogLevel::Error:
      return "error";
    case LogLevel::Off:
      break;
  }
  return "off";
}

void configure_logging(LogLevel level, const std::string& file) {
  logger() = make_logger(level, file);
}

void reset_logging() {
  logger().reset();
}

bool log_enabled(LogLevel level) {
  return level != LogLevel::Off && current().should_log(spd(level));
}

void log_message(LogLevel level, std::string_view message) {
  if (level == LogLevel::Off) return;
  current().log(spd(level), "{}", message);
}

}  // namespace sim
