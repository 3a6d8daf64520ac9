#!/bin/sh
# Configures (once) and builds libagents in ./build.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh
[ -f build/build.ninja ] || meson setup build >&2
ninja -C build >&2
