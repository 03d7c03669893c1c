// Transparent huge pages for a simulation's memory (docs/benchmarks.md, "Huge pages").
#pragma once

namespace sim {

// Re-executes this program once with glibc's malloc set to ask the kernel for transparent huge
// pages (GLIBC_TUNABLES glibc.malloc.hugetlb=1), when the kernel grants them on request only
// (THP "madvise", Debian's default): `rdmasim run`, `rdmasim sweep` and rdmasim_bench. Returns
// (changing nothing) when the tunable is already set — glibc.malloc.hugetlb=0 keeps 4 KiB
// pages —, when THP is "always" or "never", under valgrind, in a sanitizer build, or when the
// exec fails. `argv` must be the program's own, unchanged.
void reexec_with_huge_pages(char** argv);

// Whether this process's memory may be in transparent huge pages: THP "always", or "madvise"
// with glibc's malloc asking for them (the re-exec above). Reading how much is (Linux's
// /proc/self/smaps_rollup walks every mapping's pages: under a sanitizer, whose shadow memory is
// vast, tens of milliseconds per read) is only worth it then.
bool huge_pages_possible();

}  // namespace sim
