#!/bin/sh
# Checks that libagents/agents-version-macros.h honours what a program
# asks of it (the way json-glib's version macros do): deprecated symbols
# warn unless AGENTS_DISABLE_DEPRECATION_WARNINGS is defined, symbols newer
# than AGENTS_VERSION_MAX_ALLOWED warn, and impossible bounds do not
# compile. Each case compiles tests/version-macros.c with deprecation
# warnings as errors.
#
# Usage: check-version-macros.sh SOURCE_ROOT BUILD_ROOT COMPILER...
set -u
LC_ALL=C
export LC_ALL

src=$1
build=$2
shift 2

cflags=$(pkg-config --cflags glib-2.0) || exit 1
status=0

# compile EXPECTED NAME COMPILER [FLAGS...]: EXPECTED is "ok" (it must
# compile cleanly) or the text the compiler's error must hold.
compile() {
  expected=$1
  name=$2
  shift 2
  # shellcheck disable=SC2086 # cflags is a list of flags
  if out=$("$@" -fsyntax-only -Werror=deprecated-declarations $cflags \
      -I"$src/libagents" -I"$build/libagents" \
      "$src/tests/version-macros.c" 2>&1); then
    got=ok
  else
    got=fails
  fi
  if [ "$expected" = ok ] && [ "$got" = ok ] && [ -z "$out" ]; then
    echo "ok - $name"
  elif [ "$expected" != ok ] && [ "$got" = fails ] &&
       printf '%s\n' "$out" | grep -q -F -e "$expected"; then
    echo "ok - $name"
  else
    echo "FAIL - $name: expected ${expected}, the compiler said:"
    printf '%s\n' "$out" | sed 's/^/  /'
    status=1
  fi
}

compile ok "defaults: MIN_REQUIRED and MAX_ALLOWED are the current version" \
  "$@" -DCASE_DEFAULTS
compile "Use 'agents_test_new' instead" "AGENTS_DEPRECATED_FOR warns" "$@" -DCASE_DEPRECATED_FOR
compile "is deprecated" "AGENTS_DEPRECATED warns" "$@" -DCASE_DEPRECATED
compile ok "AGENTS_DISABLE_DEPRECATION_WARNINGS silences AGENTS_DEPRECATED_FOR" \
  "$@" -DCASE_DEPRECATED_FOR -DAGENTS_DISABLE_DEPRECATION_WARNINGS
compile "Use 'agents_test_new' instead" "AGENTS_DEPRECATED_IN_1_0_FOR warns when MIN_REQUIRED is 1.0" \
  "$@" -DCASE_DEPRECATED_IN_1_0 -DAGENTS_VERSION_MIN_REQUIRED=AGENTS_VERSION_1_0
compile "Not available before 9.9" "AGENTS_UNAVAILABLE warns" "$@" -DCASE_UNAVAILABLE
compile ok "AGENTS_DISABLE_DEPRECATION_WARNINGS silences AGENTS_UNAVAILABLE" \
  "$@" -DCASE_UNAVAILABLE -DAGENTS_DISABLE_DEPRECATION_WARNINGS
compile ok "MAX_ALLOWED may be given as the current version" \
  "$@" -DCASE_EMPTY -DAGENTS_VERSION_MAX_ALLOWED=AGENTS_VERSION_1_0
compile "AGENTS_VERSION_MAX_ALLOWED must be >= AGENTS_VERSION_MIN_REQUIRED" "MAX_ALLOWED below MIN_REQUIRED does not compile" \
  "$@" -DCASE_EMPTY -DAGENTS_VERSION_MAX_ALLOWED=0
compile "AGENTS_VERSION_MIN_REQUIRED must be >= AGENTS_VERSION_1_0" "MIN_REQUIRED below 1.0 does not compile" \
  "$@" -DCASE_EMPTY "-DAGENTS_VERSION_MIN_REQUIRED=G_ENCODE_VERSION (0, 9)"
exit "$status"
