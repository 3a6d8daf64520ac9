#!/bin/sh
# test-pkgconfig.sh - the agents-1.0.pc variables (TAP): plugindir names
# the directory the library searches for plugins; the uninstalled .pc
# names the build's plugin directories, which find the real plugins.
#
# Usage: test-pkgconfig.sh AGENTS_BINARY BUILD_ROOT PLUGINS_DIR
#
# Copyright 2026 The libagents authors
# SPDX-License-Identifier: LGPL-2.1-or-later
set -u

agents=$1
build=$2
pluginsdir=$3
unset AGENTS_PLUGIN_PATH

n=0
failed=0

check() {
  n=$((n + 1))
  if [ "$1" = 0 ]; then
    echo "ok $n - $2"
  else
    failed=$((failed + 1))
    echo "not ok $n - $2"
  fi
}

installed=$(PKG_CONFIG_PATH="$build/meson-private" \
  pkg-config --variable=plugindir agents-1.0)
[ "$installed" = "$pluginsdir" ]
check $? "plugindir of the installed .pc is the plugin directory the library searches ($installed)"

uninstalled=$(PKG_CONFIG_PATH="$build/meson-uninstalled" \
  pkg-config --variable=plugindir agents-1.0)
ok=0
[ -n "$uninstalled" ] || ok=1
old_ifs=$IFS
IFS=:
for dir in $uninstalled; do
  ls "$dir"/lib*.so >/dev/null 2>&1 || ok=1
done
IFS=$old_ifs
check $ok "plugindir of the uninstalled .pc names the build's plugin directories"

AGENTS_PLUGIN_PATH=$uninstalled "$agents" plugins >"$build/test-pkgconfig.out" 2>&1
ok=$?
for backend in unix_local docker; do
  grep -q "^  $backend\$" "$build/test-pkgconfig.out" || ok=1
done
check $ok "used as AGENTS_PLUGIN_PATH it finds the built backends"
rm -f "$build/test-pkgconfig.out"

echo "1..$n"
[ "$failed" -eq 0 ]
