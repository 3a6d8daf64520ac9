#!/bin/sh
# Sets everything up on a fresh Debian 12 machine, builds, and runs the
# main job: the demo in a confined unix-local sandbox.
set -eu
cd "$(dirname "$0")/.."
sh scripts/build.sh
exec env AGENTS_PLUGIN_PATH="$PWD/build/plugins/unix-local:$PWD/build/plugins/s3mount" \
  ./build/examples/sandbox-demo examples/demo-manifest.json "$@"
