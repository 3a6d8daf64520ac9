#!/bin/sh
# Builds the test image libagents-test:busybox without a registry: a
# rootfs of Debian's busybox-static, imported through the Engine API
# (POST /images/create?fromSrc=-). Used by the docker tests, benchmarks
# and examples. Safe to run again; rebuilds only when asked (--force) or
# when the image is missing.
#
#   build-image.sh [--force]          libagents-test:busybox
#   build-image.sh --fuse [--force]   libagents-test:fuse, the same plus
#                                     the host's rclone, s3fs and
#                                     fusermount3 with the libraries they
#                                     load, for s3_mount's in-container
#                                     strategy (s3fs reads its read-only
#                                     mounts)
#
# Environment: DOCKER_SOCKET (default /var/run/docker.sock).
set -eu

IMAGE_REPO=libagents-test
IMAGE_TAG=busybox
SOCKET=${DOCKER_SOCKET:-/var/run/docker.sock}
BUSYBOX=${BUSYBOX:-/bin/busybox}
FUSE=false
if [ "${1:-}" = "--fuse" ]; then
  FUSE=true
  IMAGE_TAG=fuse
  shift
fi

api() {
  curl -sS --fail-with-body --unix-socket "$SOCKET" "$@"
}

# Copies program $1 (found in PATH) to $root/usr/bin with every library
# ldd names, at the same paths.
copy_program() {
  program=$(command -v "$1") || {
    echo "build-image.sh: $1 is not installed (apt install rclone s3fs fuse3)" >&2
    exit 1
  }
  mkdir -p "$root/usr/bin"
  cp "$program" "$root/usr/bin/$1"
  for lib in $(ldd "$program" | sed -n 's/.*=> \(\/[^ ]*\).*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p'); do
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
  done
}

if [ "${1:-}" != "--force" ] &&
  api -o /dev/null "http://docker/v1.41/images/$IMAGE_REPO:$IMAGE_TAG/json" 2>/dev/null; then
  exit 0
fi

if ! "$BUSYBOX" --list >/dev/null 2>&1 || ldd "$BUSYBOX" >/dev/null 2>&1; then
  echo "build-image.sh: $BUSYBOX is not a static busybox (apt install busybox-static)" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
root=$work/rootfs
mkdir -p "$root/bin" "$root/etc" "$root/tmp" "$root/root" "$root/workspace" \
  "$root/home/agent"
chmod 1777 "$root/tmp"
cp "$BUSYBOX" "$root/bin/busybox"
for applet in $("$BUSYBOX" --list); do
  [ "$applet" = busybox ] || ln -s busybox "$root/bin/$applet"
done
# Debian's busybox lacks printenv and cksum, which the tests use.
cat >"$root/bin/printenv" <<'SCRIPT'
#!/bin/sh
[ $# -eq 0 ] && exec env
status=0
for name; do
  if env | grep -q "^$name="; then
    eval "printf '%s\\n' \"\${$name}\""
  else
    status=1
  fi
done
exit $status
SCRIPT
cat >"$root/bin/cksum" <<'SCRIPT'
#!/bin/sh
# Not POSIX cksum's CRC: a stand-in that only needs to tell contents apart.
md5sum "$@" | sed 's/ .*//'
SCRIPT
chmod 755 "$root/bin/printenv" "$root/bin/cksum"
cat >"$root/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/bin/sh
agent:x:1000:1000:agent:/home/agent:/bin/sh
nobody:x:65534:65534:nobody:/:/bin/sh
PASSWD
cat >"$root/etc/group" <<'GROUP'
root:x:0:
agent:x:1000:
nogroup:x:65534:
GROUP
chown 1000:1000 "$root/home/agent"
if $FUSE; then
  copy_program rclone
  copy_program s3fs
  copy_program fusermount3
  ln -s fusermount3 "$root/usr/bin/fusermount"
  # Read by fusermount3 when a non-root user asks for allow_other.
  echo user_allow_other >"$root/etc/fuse.conf"
fi

tar -C "$root" -cf "$work/rootfs.tar" .
out=$(api -X POST -H 'Content-Type: application/x-tar' \
  --data-binary "@$work/rootfs.tar" \
  "http://docker/v1.41/images/create?fromSrc=-&repo=$IMAGE_REPO&tag=$IMAGE_TAG")
case "$out" in
*error*) echo "build-image.sh: the engine refused the image: $out" >&2; exit 1 ;;
esac
echo "built $IMAGE_REPO:$IMAGE_TAG"
