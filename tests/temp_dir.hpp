// A fresh directory under the system temp folder for one test, removed with everything in it.
#pragma once

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace test_support {

class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "rdmasim_test") {
    static std::atomic<int> counter{0};
    const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
    path_ = std::filesystem::temp_directory_path() /
            (prefix + "_" + std::to_string(getpid()) + "_" + std::to_string(now) + "_" +
             std::to_string(counter++));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

  // Writes `text` to `name` inside the directory; returns the full path (empty on failure).
  std::filesystem::path write(const std::string& name, const std::string& text) const {
    const std::filesystem::path p = path_ / name;
    std::ofstream out(p, std::ios::binary);
    out << text;
    out.close();
    return out ? p : std::filesystem::path();
  }

 private:
  std::filesystem::path path_;
};

// Quotes `s` for /bin/sh (single quotes, embedded ones escaped).
inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (const char c : s) {
    if (c == '\'') {
      q += "'\\''";
    } else {
      q += c;
    }
  }
  return q + "'";
}

// The whole file as bytes ("" if it cannot be read).
inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every file a run wrote into `folder` (its sub-folders too) but run_stats.json (wall time,
// memory, events per second: what differs between two runs of the same results), by path.
inline std::map<std::string, std::string> run_files(const std::filesystem::path& folder) {
  std::map<std::string, std::string> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(folder)) {
    if (!e.is_regular_file() || e.path().filename() == "run_stats.json") continue;
    files[std::filesystem::relative(e.path(), folder).string()] = read_file(e.path());
  }
  return files;
}

}  // namespace test_support
