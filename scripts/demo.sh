#!/bin/sh
# Sets everything up on a fresh Debian 12 machine, builds, and runs the
# main job: the demo agent of examples/demo/ working in a confined
# unix-local sandbox, through the `agents` program.
#
#   sh scripts/demo.sh                       the demo agent
#   sh scripts/demo.sh [PROMPT] [OPTION…]    e.g. --json, or in a container:
#     --backend docker -o image=libagents-test:busybox
#   sh scripts/demo.sh --sandbox-demo [MANIFEST] [COMMAND]
#                                            the sandbox without an agent
set -eu
cd "$(dirname "$0")/.."
sh scripts/build.sh
AGENTS_PLUGIN_PATH="$PWD/build/plugins/unix-local:$PWD/build/plugins/s3mount:$PWD/build/plugins/docker"
export AGENTS_PLUGIN_PATH

if [ "${1:-}" = "--sandbox-demo" ]; then
  shift
  manifest=${1:-examples/demo-manifest.json}
  [ $# -gt 0 ] && shift
  exec ./build/examples/sandbox-demo "$manifest" "$@"
fi

prompt="Sort these numbers: 42 7 19 3 88"
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
  prompt=$1
  shift
fi
exec ./build/tools/agents run examples/demo/agent.json "$prompt" "$@"
