# Sourced by the examples' run.sh: where the binaries are (RDMASIM_BIN, default build/bin of
# this checkout) and a folder for the outputs (the first argument, default a new temporary
# folder). Every command is echoed before it runs, as in the examples' READMEs.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${RDMASIM_BIN:-$repo/build/bin}"
out="${1:-$(mktemp -d)}"
mkdir -p "$out"
cd "$repo"
exec 3>&1  # the echoed commands go here even when a command's output is redirected
show() {
  echo "\$ $*" | sed "s|$bin/|build/bin/|g; s|$out|OUT|g" >&3
  "$@" | sed "s|$out|OUT|g"
}
