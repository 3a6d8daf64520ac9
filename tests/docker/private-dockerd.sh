#!/bin/sh
# Runs a private dockerd for one test program (tests/test-docker-remote.c)
# and cleans up after it whatever happens to the test, crash included.
#
#   private-dockerd.sh DIR DOCKERD-ARGUMENT...
#
# DIR is the engine's private directory (data root, exec root, sockets);
# dockerd's output is appended to DIR/dockerd.log. Commands come on
# stdin, one a line, and each is answered on stdout:
#   start  starts dockerd with the arguments            -> "started PID"
#   stop   SIGTERM, wait for it (SIGKILL after 30 s)    -> "stopped"
#   quit   stop, unmount what is left under DIR, remove DIR -> "done"
# The end of stdin (the test exited, crashed or was killed) means quit.
# Start it in a session of its own so that signals meant for the test's
# process group do not cut the clean-up short.
set -u

dir=$1
shift
pid=

# A zombie is gone for our purposes; stop() reaps it.
alive() {
  [ -r "/proc/$1/status" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status"
}

# Last resort after a SIGKILL: dockerd's containerd and shims, which all
# name a path under DIR on their command line.
kill_leftovers() {
  for p in /proc/[0-9]*; do
    n=${p#/proc/}
    [ "$n" = "$$" ] && continue
    if tr '\000' ' ' <"$p/cmdline" 2>/dev/null | grep -qF "$dir/"; then
      echo "private-dockerd.sh: killing leftover process $n" >&2
      kill -KILL "$n" 2>/dev/null
    fi
  done
}

start() {
  if [ -z "$pid" ] || ! alive "$pid"; then
    [ -z "$pid" ] || wait "$pid" 2>/dev/null
    dockerd "$@" >>"$dir/dockerd.log" 2>&1 </dev/null &
    pid=$!
  fi
  echo "started $pid"
}

stop() {
  [ -n "$pid" ] || return 0
  kill -TERM "$pid" 2>/dev/null
  tries=0
  while alive "$pid"; do
    tries=$((tries + 1))
    if [ "$tries" -eq 300 ]; then
      echo "private-dockerd.sh: dockerd $pid did not stop in 30 s" >&2
      kill -KILL "$pid" 2>/dev/null
      kill_leftovers
    fi
    sleep 0.1
  done
  wait "$pid" 2>/dev/null
  pid=
}

mounts_under_dir() {
  awk -v d="$dir" '$2 == d || index($2, d "/") == 1 { print $2 }' /proc/mounts
}

cleanup() {
  # The test may be gone: nothing may stop the clean-up now.
  trap '' INT TERM HUP PIPE
  stop
  # A killed dockerd leaves its overlay and namespace mounts; children
  # sort after their parents, so reversed order unmounts them first.
  mounts_under_dir | sort -r | while read -r mount; do
    umount -l "$mount" || echo "private-dockerd.sh: cannot unmount $mount" >&2
  done
  if [ -n "$(mounts_under_dir)" ]; then
    echo "private-dockerd.sh: mounts remain under $dir; not removing it" >&2
  else
    rm -rf "$dir"
  fi
  echo done 2>/dev/null
}

trap 'cleanup; exit 0' INT TERM HUP
while read -r command; do
  case $command in
  start) start "$@" ;;
  stop)
    stop
    echo stopped
    ;;
  quit) break ;;
  *) echo "unknown command: $command" ;;
  esac
done
cleanup
