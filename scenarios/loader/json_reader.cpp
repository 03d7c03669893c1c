#include "scenarios/loader/json_reader.hpp"

#include <fstream>
#include <sstream>
#include <vector>

#include "sim/units.hpp"

namespace scen {

std::string message_text(const Json& v) {
  std::string s = v.dump(-1, ' ', false, Json::error_handler_t::replace);
  // An object or array is shown by its start; a string or number whole (a file name of a few
  // hundred characters is what the user needs to see), up to a bound.
  const size_t most = v.is_structured() ? 80 : 1000;
  if (s.size() > most) s = s.substr(0, most - 3) + "...";
  return s;
}

namespace {
thread_local std::set<std::string>* t_key_log = nullptr;

void log_key(const std::string& path) {
  std::string normal;
  normal.reserve(path.size());
  for (size_t i = 0; i < path.size(); ++i) {
    normal += path[i];
    if (path[i] == '[') {
      while (i + 1 < path.size() && path[i + 1] != ']') ++i;
    }
  }
  t_key_log->insert(std::move(normal));
}
}  // namespace

void set_key_log(std::set<std::string>* log) {
  t_key_log = log;
}

JsonReader::JsonReader(const Json& j, std::string path) : j_(&j), path_(std::move(path)) {}

std::string JsonReader::child_path(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}
std::string JsonReader::index_path(size_t i) const {
  return path_ + "[" + std::to_string(i) + "]";
}

void JsonReader::expect_object() const {
  if (!j_->is_object()) {
    throw InputError(path_.empty() ? "(root)" : path_, message_text(*j_), "an object {...}");
  }
}
void JsonReader::expect_array() const {
  if (!j_->is_array()) throw InputError(path_, message_text(*j_), "an array [...]");
}

bool JsonReader::has(std::string_view key) const {
  if (t_key_log != nullptr) log_key(child_path(key));
  return j_->is_object() && j_->find(key) != j_->end();
}

const Json& JsonReader::value_at(std::string_view key) {
  expect_object();
  if (t_key_log != nullptr) log_key(child_path(key));
  auto it = j_->find(key);
  if (it == j_->end()) throw InputError(child_path(key), "", "this required key");
  used_.insert(std::string(key));
  return *it;
}

JsonReader JsonReader::at(std::string_view key) {
  return JsonReader(value_at(key), child_path(key));
}

std::optional<JsonReader> JsonReader::get(std::string_view key) {
  if (!has(key)) return std::nullopt;
  return at(key);
}

size_t JsonReader::size() const {
  expect_array();
  return j_->size();
}
JsonReader JsonReader::element(size_t i) const {
  return JsonReader((*j_)[i], index_path(i));
}

std::string JsonReader::value_text(std::string_view key) const {
  auto it = j_->find(key);
  return it == j_->end() ? std::string() : message_text(*it);
}

std::string JsonReader::string(std::string_view key) {
  const Json& v = value_at(key);
  if (!v.is_string()) throw InputError(child_path(key), message_text(v), "a string");
  return v.get<std::string>();
}
std::string JsonReader::string(std::string_view key, const std::string& def) {
  return has(key) ? string(key) : def;
}

std::string JsonReader::choice(std::string_view key,
                               std::initializer_list<std::string_view> allowed,
                               const std::string& def) {
  return choice(key, std::vector<std::string>(allowed.begin(), allowed.end()), def);
}

std::string JsonReader::choice(std::string_view key, const std::vector<std::string>& allowed,
                               const std::string& def) {
  if (!has(key)) return def;
  const std::string v = string(key);
  std::string list;
  for (const auto& a : allowed) {
    if (a == v) return v;
    list += (list.empty() ? "" : ", ") + std::string("\"") + a + "\"";
  }
  throw InputError(child_path(key), "\"" + v + "\"", "one of " + list);
}

bool JsonReader::boolean(std::string_view key, bool def) {
  if (!has(key)) return def;
  const Json& v = value_at(key);
  if (!v.is_boolean()) throw InputError(child_path(key), message_text(v), "true or false");
  return v.get<bool>();
}

int64_t JsonReader::integer(std::string_view key, int64_t min, int64_t max) {
  const Json& v = value_at(key);
  const std::string range =
      "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  // A value beyond 64-bit signed range is refused, never clamped (two different seeds above
  // 2^63 must not silently become the same seed).
  if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<uint64_t>() > INT64_MAX)) {
    throw InputError(child_path(key), message_text(v), range);
  }
  const int64_t x = v.get<int64_t>();
  if (x < min || x > max) throw InputError(child_path(key), message_text(v), range);
  return x;
}
int64_t JsonReader::integer(std::string_view key, int64_t def, int64_t min, int64_t max) {
  return has(key) ? integer(key, min, max) : def;
}

double JsonReader::number(std::string_view key, double def, double min, double max) {
  if (!has(key)) return def;
  const Json& v = value_at(key);
  std::ostringstream range;
  range << "a number in [" << min << ", " << max << "]";
  if (!v.is_number()) throw InputError(child_path(key), message_text(v), range.str());
  const double x = v.get<double>();
  if (!(x >= min && x <= max)) throw InputError(child_path(key), message_text(v), range.str());
  return x;
}

sim::Time JsonReader::time(std::string_view key, sim::Time min) {
  const Json& v = value_at(key);
  const std::string expect = "a duration with a unit such as \"600ns\", \"1us\", \"2ms\"" +
                             (min.ps > 0 ? ", at least " + sim::format_time(min) : std::string());
  if (!v.is_string()) throw InputError(child_path(key), message_text(v), expect);
  sim::Time t;
  try {
    t = sim::parse_time(v.get<std::string>());
  } catch (const sim::UnitError& e) {
    throw InputError(child_path(key), message_text(v), e.what());
  }
  if (t < min) throw InputError(child_path(key), message_text(v), expect);
  if (t.ps > kMaxTimePs) {
    throw InputError(child_path(key), message_text(v),
                     "at most 1000000s (so that every time the simulation forms fits in 64 bits "
                     "of picoseconds)");
  }
  return t;
}
sim::Time JsonReader::time(std::string_view key, sim::Time def, sim::Time min) {
  return has(key) ? time(key, min) : def;
}

int64_t JsonReader::rate_bps(std::string_view key) {
  const Json& v = value_at(key);
  const std::string expect = "a positive rate with a unit such as \"400Gbps\", \"100Mbps\"";
  if (!v.is_string()) throw InputError(child_path(key), message_text(v), expect);
  int64_t r = 0;
  try {
    r = sim::parse_rate_bps(v.get<std::string>());
  } catch (const sim::UnitError& e) {
    throw InputError(child_path(key), message_text(v), e.what());
  }
  if (r <= 0) throw InputError(child_path(key), message_text(v), expect);
  if (r < kMinRateBps || r > kMaxRateBps) {
    throw InputError(child_path(key), message_text(v),
                     "a rate from 1kbps to 1000Tbps (so that every transfer time fits in 64 bits "
                     "of picoseconds)");
  }
  return r;
}
int64_t JsonReader::rate_bps(std::string_view key, int64_t def) {
  return has(key) ? rate_bps(key) : def;
}

int64_t JsonReader::bytes(std::string_view key, int64_t min) {
  const Json& v = value_at(key);
  const std::string expect =
      "a size such as \"4KiB\", \"12MB\", \"1500B\" (at least " + std::to_string(min) + " bytes)";
  int64_t b = 0;
  if (v.is_number_integer()) {
    b = v.get<int64_t>();
  } else if (v.is_string()) {
    try {
      b = sim::parse_bytes(v.get<std::string>());
    } catch (const sim::UnitError& e) {
      throw InputError(child_path(key), message_text(v), e.what());
    }
  } else {
    throw InputError(child_path(key), message_text(v), expect);
  }
  if (b < min) throw InputError(child_path(key), message_text(v), expect);
  if (b > kMaxBytes) {
    throw InputError(child_path(key), message_text(v),
                     "at most 1TiB (so that every byte count and time the simulation forms fits "
                     "in 64 bits)");
  }
  return b;
}
int64_t JsonReader::bytes(std::string_view key, int64_t def, int64_t min) {
  return has(key) ? bytes(key, min) : def;
}

void JsonReader::finish() const {
  if (!j_->is_object()) return;
  for (auto it = j_->begin(); it != j_->end(); ++it) {
    if (used_.find(it.key()) == used_.end()) {
      throw InputError(child_path(it.key()), message_text(it.value()),
                       "no such key here (unknown keys are refused; check the spelling)");
    }
  }
}

namespace {

// Line and column (from 1) of byte offset `at` in `text`.
std::string line_col(const std::string& text, size_t at) {
  size_t line = 1, col = 1;
  for (size_t i = 0; i < at && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return std::to_string(line) + ":" + std::to_string(col);
}

// Refuses nesting deeper than kMaxJsonDepth (brackets outside strings), before parsing.
void check_depth(const std::string& text, const std::string& where) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) {
        throw InputError(where + ":" + line_col(text, i), std::string(1, c),
                         "JSON nested at most " + std::to_string(kMaxJsonDepth) + " deep");
      }
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

// Refuses a key given twice in one object, which JSON parsers keep silently (the last wins):
// a scenario would then run with a value its author did not see.
class DuplicateKeys {
 public:
  explicit DuplicateKeys(std::string where) : where_(std::move(where)) {}
  bool operator()(int /*depth*/, Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
      case Json::parse_event_t::array_start:
        frames_.push_back(Frame{event == Json::parse_event_t::object_start, {}, {}, 0});
        break;
      case Json::parse_event_t::key: {
        Frame& f = frames_.back();
        f.key = parsed.get<std::string>();
        if (!f.keys.insert(f.key).second) {
          throw InputError(where_ + ": " + path(), "\"" + f.key + "\"",
                           "each key once in an object (JSON would keep only the last)");
        }
        break;
      }
      case Json::parse_event_t::object_end:
      case Json::parse_event_t::array_end:
        frames_.pop_back();
        element_done();
        break;
      case Json::parse_event_t::value:
        element_done();
        break;
    }
    return true;
  }

 private:
  struct Frame {
    bool object;
    std::set<std::string> keys;
    std::string key;
    size_t index;
  };
  void element_done() {
    if (!frames_.empty() && !frames_.back().object) ++frames_.back().index;
  }
  std::string path() const {
    std::string p;
    for (const Frame& f : frames_) {
      if (f.object) {
        p += (p.empty() ? "" : ".") + f.key;
      } else {
        p += "[" + std::to_string(f.index) + "]";
      }
    }
    return p;
  }
  std::string where_;
  std::vector<Frame> frames_;
};

}  // namespace

Json parse_json_text(const std::string& text, const std::string& where) {
  check_depth(text, where);
  try {
    return Json::parse(text, DuplicateKeys(where));
  } catch (const Json::parse_error& e) {
    // e.byte is the offset (from 1) of the error; turned into line and column for people.
    throw InputError(where + ":" + line_col(text, e.byte > 0 ? e.byte - 1 : 0), "",
                     std::string("valid JSON (") + e.what() + ")");
  } catch (const Json::out_of_range& e) {  // a number beyond a double's range: 1e999
    throw InputError(where, e.what(), "numbers within a double's range (about 1.8e308)");
  }
}

Json parse_cli_value(const std::string& text, const std::string& where) {
  check_depth(text, where);
  try {
    return Json::parse(text);
  } catch (const Json::parse_error&) {
    // A bare word such as 400Gbps is a string; JSON strings are UTF-8 text.
    require_utf8(text, where);
    return text;
  } catch (const Json::out_of_range&) {
    throw InputError(where, text, "a number within a double's range (about 1.8e308)");
  }
}

Json read_json_file(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(file, "", "a readable file (it does not exist or cannot be read)");
  // Read at most the cap (and one byte more to know): /dev/zero must not fill memory.
  std::string text;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<size_t>(in.gcount()));
    if (static_cast<int64_t>(text.size()) > kMaxJsonFileBytes) {
      throw InputError(file, "", "a JSON file of at most 256 MiB");
    }
  }
  return parse_json_text(text, file);
}

}  // namespace scen
