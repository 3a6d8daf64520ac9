#!/bin/sh
# Checks that po/POTFILES.in is complete: every C file under libagents/,
# plugins/ and tools/ that marks strings for translation is listed, and
# every listed file exists. (The idea of libadwaita's
# .gitlab-ci/check-potfiles.sh.)
#
# Usage: check-potfiles.sh [SOURCE_ROOT]
set -eu

cd "${1:-.}"
potfiles=po/POTFILES.in

# The listed files: comments and blank lines dropped.
listed=$(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$potfiles")

# _( N_( C_( NC_( as a whole word, and the gettext plural functions.
marker='(^|[^A-Za-z0-9_])(N|C|NC)?_[[:space:]]*\(|(^|[^A-Za-z0-9_])(g_)?d?c?n?gettext[[:space:]]*\('

missing=""
for file in $(find libagents plugins tools -name '*.c' 2>/dev/null | LC_ALL=C sort); do
  if grep -q -E "$marker" "$file" &&
     ! printf '%s\n' "$listed" | grep -q -x -F "$file"; then
    missing="$missing $file"
  fi
done

stale=""
for file in $listed; do
  [ -f "$file" ] || stale="$stale $file"
done

status=0
if [ -n "$missing" ]; then
  echo "These files have translatable strings but are missing from $potfiles:"
  for file in $missing; do echo "  $file"; done
  status=1
fi
if [ -n "$stale" ]; then
  echo "These files are listed in $potfiles but do not exist:"
  for file in $stale; do echo "  $file"; done
  status=1
fi
if [ "$status" -eq 0 ]; then
  echo "$potfiles is complete"
fi
exit "$status"
