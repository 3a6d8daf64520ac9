#!/bin/sh
# Runs a backend benchmark from a build directory.
#
#   bench/run.sh [BUILD_DIR] [unix-local|docker] [--quick] [--files N] [...]
#
# BUILD_DIR defaults to $BUILD_DIR, then ./build. Configure it with
# -Dbuildtype=release for numbers worth reporting. The benchmark defaults
# to unix-local; docker needs a Docker engine, the `docker` CLI and the
# test image (tests/docker/build-image.sh), and says so when one is
# missing. Options after that go to bench-unix-local or bench-docker
# (see --help).
set -eu

build=${BUILD_DIR:-build}
if [ $# -gt 0 ] && [ -d "$1" ] && [ "$1" != docker ] && [ "$1" != unix-local ]; then
  build=$1
  shift
fi
if [ ! -f "$build/build.ninja" ]; then
  echo "run.sh: $build is not a meson build directory" >&2
  exit 2
fi

bench=unix-local
case "${1-}" in
  unix-local | docker)
    bench=$1
    shift
    ;;
esac

ninja -C "$build" "bench/bench-$bench" >&2

buildtype=$(meson introspect --buildoptions "$build" 2>/dev/null |
  python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="buildtype"][0])' 2>/dev/null ||
  echo unknown)
if [ "$buildtype" != release ]; then
  echo "run.sh: warning: $build has buildtype=$buildtype, not release" >&2
fi

# The programs link their backend statically and set AGENTS_DISABLE_PLUGINS
# themselves; no GIO modules are needed.
GIO_MODULE_DIR= exec "$build/bench/bench-$bench" "$@"
