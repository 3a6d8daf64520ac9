#!/bin/sh
# Starts or stops the S3 server the s3 suite mounts buckets from.
#
#   s3-service.sh start   installs s3rver@3.7.1 (npm) into $STATE_DIR/s3rver
#                         once, starts it on 127.0.0.1 at a free port and
#                         writes its endpoint URL to $STATE_DIR/s3/endpoint
#   s3-service.sh stop    stops the server `start` started and removes the
#                         endpoint file and the server's data
#
# The tests read the endpoint file (tests/meson.build points
# AGENTS_TEST_S3_ENDPOINT_FILE at build/s3/endpoint); without it, or
# without rclone and FUSE, they skip and say why. s3rver accepts the
# access key S3RVER with the secret S3RVER, and checks signatures.
# Nothing here is fatal: when Node, npm or the package cannot be had,
# start says why and exits 0 so that the rest of the run goes on.
set -eu
cd "$(dirname "$0")/.."

STATE_DIR=${AGENTS_S3_STATE_DIR:-build}
DIR=$STATE_DIR/s3
PIDFILE=$DIR/s3rver.pid
ENDPOINT_FILE=$DIR/endpoint
LOG=$DIR/s3rver.log
PKG_DIR=$STATE_DIR/s3rver
S3RVER=$PKG_DIR/node_modules/.bin/s3rver

skip() {
  echo "s3-service.sh: $*; s3 tests will be skipped" >&2
  exit 0
}

running() {
  [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null
}

answers() {
  curl -s -o /dev/null --max-time 2 "$1/" 2>/dev/null
}

free_port() {
  /usr/bin/python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

install_s3rver() {
  [ -x "$S3RVER" ] && return 0
  if ! command -v node >/dev/null 2>&1 && ! command -v npm >/dev/null 2>&1; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 \
      install -y --no-install-recommends nodejs npm >&2 || true
  fi
  command -v node >/dev/null 2>&1 || skip "no node (apt install nodejs)"
  command -v npm >/dev/null 2>&1 || skip "no npm (apt install npm)"
  major=$(node -p 'process.versions.node.split(".")[0]')
  [ "$major" -ge 14 ] || skip "node $major is too old for s3rver (needs 14 or later)"
  mkdir -p "$PKG_DIR"
  npm install --prefix "$PKG_DIR" --no-audit --no-fund --loglevel=error \
    s3rver@3.7.1 >"$DIR/npm.log" 2>&1 ||
    skip "npm install s3rver@3.7.1 failed (see $DIR/npm.log)"
}

start() {
  mkdir -p "$DIR"
  if running && [ -f "$ENDPOINT_FILE" ] && answers "$(cat "$ENDPOINT_FILE")"; then
    return 0
  fi
  rm -f "$ENDPOINT_FILE"
  install_s3rver
  port=$(free_port)
  rm -rf "$DIR/data"
  mkdir -p "$DIR/data"
  "$S3RVER" -d "$DIR/data" -a 127.0.0.1 -p "$port" --silent \
    --no-vhost-buckets >"$LOG" 2>&1 &
  echo $! >"$PIDFILE"
  endpoint=http://127.0.0.1:$port
  tries=0
  until answers "$endpoint"; do
    tries=$((tries + 1))
    if [ $tries -gt 60 ] || ! running; then
      tail -n 20 "$LOG" >&2 || true
      stop
      skip "s3rver did not come up (see $LOG)"
    fi
    sleep 0.5
  done
  echo "$endpoint" >"$ENDPOINT_FILE"
  echo "s3-service.sh: s3rver at $endpoint" >&2
}

stop() {
  rm -f "$ENDPOINT_FILE"
  [ -f "$PIDFILE" ] || return 0
  pid=$(cat "$PIDFILE")
  rm -f "$PIDFILE"
  kill "$pid" 2>/dev/null || return 0
  tries=0
  while kill -0 "$pid" 2>/dev/null && [ $tries -lt 20 ]; do
    tries=$((tries + 1))
    sleep 0.25
  done
  kill -9 "$pid" 2>/dev/null || true
  rm -rf "$DIR/data"
}

case "${1:-}" in
start) start ;;
stop) stop ;;
*) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
