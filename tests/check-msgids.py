#!/usr/bin/env python3
"""Fails when a translatable string is built from string literals joined
by a macro (G_GINT64_FORMAT, G_GSIZE_FORMAT, ...): xgettext cannot expand
the macro and cuts the msgid there, so the translation never matches.
Use the <inttypes.h> PRI* macros, which xgettext understands, or
format the number into a string first.

Usage: check-msgids.py [SOURCE_ROOT]"""
import os
import re
import sys

CALL = re.compile(r"(?<![A-Za-z0-9_])(?:N_|C_|NC_|_|g_dn?gettext|g_dc?gettext|"
                  r"g_d?ngettext|dn?gettext|n?gettext)\s*\(")
# xgettext knows the <inttypes.h> macros and keeps them in the msgid.
INTTYPES = re.compile(r"PRI[diouxX](8|16|32|64|LEAST\d+|FAST\d+|MAX|PTR)$")
TOKEN = re.compile(r'\s*("(?:[^"\\\n]|\\.)*"|[A-Za-z_][A-Za-z0-9_]*|,|\)|\(|.)',
                   re.S)


def literal_runs(text, start):
    """Yields the token sequences of the call's arguments at depth 0."""
    depth, pos, run = 0, start, []
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            break
        tok, pos = m.group(1), m.end()
        if tok == "(":
            depth += 1
        elif tok == ")":
            if depth == 0:
                yield run
                return
            depth -= 1
        elif tok == "," and depth == 0:
            yield run
            run = []
        elif depth == 0:
            run.append(tok)


def broken(run):
    """A run of literals with an identifier between two of them."""
    kinds = ["s" if t.startswith('"') or INTTYPES.match(t)
             else "i" if re.match(r"[A-Za-z_]", t) else "o" for t in run]
    joined = "".join(kinds)
    return "s" in joined and re.search(r"si+s|si+$", joined) is not None


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    with open(os.path.join(root, "po", "POTFILES.in"), encoding="utf-8") as f:
        files = [l.split("#")[0].strip() for l in f]
    bad = []
    for name in filter(None, files):
        with open(os.path.join(root, name), encoding="utf-8") as f:
            text = f.read()
        for m in CALL.finditer(text):
            for run in literal_runs(text, m.end()):
                if broken(run):
                    line = text.count("\n", 0, m.start()) + 1
                    bad.append(f"{name}:{line}: {' '.join(run)[:70]}")
    for b in bad:
        print(b)
    if bad:
        print(f"{len(bad)} translatable string(s) joined by a macro", file=sys.stderr)
        return 1
    print("msgids: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
