#!/bin/sh
# Starts or stops the Docker engine the docker backend's tests use.
#
#   docker-service.sh start   starts dockerd unless an engine answers at
#                             $DOCKER_SOCKET already, waits for /_ping and
#                             builds the test image (tests/docker/build-image.sh)
#   docker-service.sh stop    stops the dockerd that `start` started, if any
#
# No systemd is assumed: dockerd runs in the background with no bridge and
# no iptables rules, which is all the tests need (sessions have no
# network by default). Without a dockerd binary, start says so and the
# docker tests skip with that reason.
set -eu
cd "$(dirname "$0")/.."

SOCKET=${DOCKER_SOCKET:-/var/run/docker.sock}
STATE_DIR=${AGENTS_DOCKER_STATE_DIR:-build}
PIDFILE=$STATE_DIR/dockerd.pid
LOG=$STATE_DIR/dockerd.log

ping_engine() {
  curl -sf --max-time 2 --unix-socket "$SOCKET" http://docker/_ping >/dev/null 2>&1
}

start() {
  mkdir -p "$STATE_DIR"
  if ! ping_engine; then
    if ! command -v dockerd >/dev/null 2>&1; then
      echo "docker-service.sh: no dockerd (apt install docker.io); docker tests will be skipped" >&2
      return 0
    fi
    dockerd --bridge=none --iptables=false --ip6tables=false \
      -H "unix://$SOCKET" >"$LOG" 2>&1 &
    echo $! >"$PIDFILE"
    tries=0
    until ping_engine; do
      tries=$((tries + 1))
      if [ $tries -gt 120 ] || ! kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
        echo "docker-service.sh: dockerd did not come up; see $LOG" >&2
        tail -n 20 "$LOG" >&2 || true
        return 1
      fi
      sleep 0.5
    done
  fi
  DOCKER_SOCKET=$SOCKET sh tests/docker/build-image.sh
}

stop() {
  [ -f "$PIDFILE" ] || return 0
  pid=$(cat "$PIDFILE")
  rm -f "$PIDFILE"
  kill "$pid" 2>/dev/null || return 0
  tries=0
  while kill -0 "$pid" 2>/dev/null && [ $tries -lt 60 ]; do
    tries=$((tries + 1))
    sleep 0.5
  done
  kill -9 "$pid" 2>/dev/null || true
}

case "${1:-}" in
start) start ;;
stop) stop ;;
*) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
