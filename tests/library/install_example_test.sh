#!/usr/bin/env bash
# Installs the library into a temporary prefix, builds examples/cpp against the installed
# CMake package (find_package(rdmasim), rdmasim::rdmasim) and runs it: what a user of the
# library does; then imports the installed Python module from its site-packages folder.
# Usage: install_example_test.sh BUILD_DIR SOURCE_DIR PYTHON PYTHON_INSTALL_DIR
set -euo pipefail
build="$1"
src="$2"
python="$3"
pydir="$4"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
# Only the API's header is installed: the program sees no header of the simulator's own.
test -f "$tmp/prefix/include/rdmasim/simulation.hpp"
test "$(find "$tmp/prefix/include" -type f | wc -l)" -eq 1
test -f "$tmp/prefix/lib/cmake/rdmasim/rdmasimConfig.cmake"
cmake -S "$src/examples/cpp" -B "$tmp/example" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/example" >/dev/null
out="$("$tmp/example/post_messages" "$src/scenarios/quickstart.json" 4)"
echo "$out"
grep -q "^all done: yes" <<<"$out"
test "$(grep -c " received 1048576 B from " <<<"$out")" -eq 3
grep -q "timer at    50.000 us" <<<"$out"
# The installed Python module loads the installed library (no build tree on its path).
PYTHONPATH="$tmp/prefix/$pydir" "$python" -c "
import rdmasim
sim = rdmasim.Simulation.from_file('$src/scenarios/quickstart.json')
r = sim.run()
assert rdmasim.__file__.startswith('$tmp/prefix/'), rdmasim.__file__
assert r.stop_reason == 'workload-done' and len(r.flows) == 20, r.stop_reason
print('installed module', rdmasim.__version__, 'ran quickstart:', len(r.flows), 'flows')
"
