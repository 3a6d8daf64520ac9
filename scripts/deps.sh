#!/bin/sh
# Installs what libagents needs to build, test and run, from Debian's
# packages. Safe to run again; does nothing when everything is there.
set -eu

PACKAGES="meson ninja-build pkg-config gcc libglib2.0-dev libglib2.0-dev-bin
libjson-glib-dev libarchive-dev libsoup-3.0-dev libseccomp-dev libsqlite3-dev
gobject-introspection libgirepository1.0-dev gir1.2-glib-2.0 gir1.2-json-1.0
gi-docgen gettext bubblewrap gjs python3 python3-gi git busybox-static
clang-format zip unzip curl docker.io openssl rclone s3fs fuse3
libreadline-dev bash-completion"

missing=""
for p in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "Installing:$missing" >&2
$SUDO apt-get update -q >&2
# shellcheck disable=SC2086
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 \
  install -y --no-install-recommends $missing >&2
