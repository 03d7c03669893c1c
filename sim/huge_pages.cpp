#include "sim/huge_pages.hpp"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace sim {
namespace {

// A sanitizer build allocates with the sanitizer's allocator, not glibc's (GCC defines the
// macros, Clang answers __has_feature).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kGlibcMalloc = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
constexpr bool kGlibcMalloc = false;
#else
constexpr bool kGlibcMalloc = true;
#endif
#else
constexpr bool kGlibcMalloc = true;
#endif

// The kernel's THP mode: the bracketed word of "always [madvise] never".
std::string thp_mode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (!std::getline(in, line)) return "";
  const size_t open = line.find('['), close = line.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return "";
  return line.substr(open + 1, close - open - 1);
}

bool asks_for_huge_pages(const char* tunables) {
  return tunables != nullptr && std::strstr(tunables, "glibc.malloc.hugetlb=1") != nullptr;
}

}  // namespace

// A large fabric's run is bound by memory latency: ports, queues, links and packets spread over
// tens of MB, and with 4 KiB pages most of those accesses miss the TLB as well as the caches.
// glibc reads its tunables only when a process starts, hence the exec.
void reexec_with_huge_pages(char** argv) {
  if (!kGlibcMalloc) return;
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables != nullptr && std::strstr(tunables, "glibc.malloc.hugetlb") != nullptr) return;
  const char* preload = std::getenv("LD_PRELOAD");
  if (preload != nullptr && std::strstr(preload, "vgpreload") != nullptr) return;  // valgrind
  if (thp_mode() != "madvise") return;
  const std::string previous = tunables != nullptr ? tunables : "";
  const std::string value =
      previous.empty() ? "glibc.malloc.hugetlb=1" : previous + ":glibc.malloc.hugetlb=1";
  if (setenv("GLIBC_TUNABLES", value.c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);
  // Still here: the exec failed; run as we are.
  if (tunables != nullptr) {
    setenv("GLIBC_TUNABLES", previous.c_str(), 1);
  } else {
    unsetenv("GLIBC_TUNABLES");
  }
}

bool huge_pages_possible() {
  static const bool possible = [] {
    const std::string mode = thp_mode();
    return mode == "always" || (mode == "madvise" && kGlibcMalloc &&
                                asks_for_huge_pages(std::getenv("GLIBC_TUNABLES")));
  }();
  return possible;
}

}  // namespace sim
