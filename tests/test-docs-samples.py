#!/usr/bin/python3
# test-docs-samples.py - every code sample of the docs, run (TAP)
#
# Extracts the fenced code blocks of README.md, docs/*.md and
# docs/reference/*.md and checks each one, so that a guide cannot rot:
#
#   ```c           compiled against the built library (pkg-config from the
#                  build's meson-uninstalled directory) and run
#   ```python      run with /usr/bin/python3 against the build's typelib
#   ```js          run with gjs -m
#   ```json        parsed
#
# A sample must exit 0 and leave nothing in its TMPDIR; it runs in an
# empty temporary directory, which is removed after it. An HTML comment just above a block (a blank line
# between them) changes what is done with it (the REASON is printed and
# counted):
#
#   <!-- sample: fragment REASON -->  a part of a program: Python and
#                                     JavaScript are syntax-checked, JSON
#                                     too (with its "…" elisions
#                                     allowed), C is not compiled
#   <!-- sample: skip REASON -->      not checked at all
#   <!-- sample: output -->           (before a ```text block) the exact
#                                     standard output of the sample run
#                                     just before it
#
# Blocks of other languages (sh, console, none …) are commands or text
# for the reader: they are counted, not run.
#
# Usage: test-docs-samples.py SOURCE_ROOT BUILD_ROOT CC [FILE…]
# GI_TYPELIB_PATH, LD_LIBRARY_PATH, AGENTS_PLUGIN_PATH and PYTHONPATH
# point at the build (meson sets them).
#
# Copyright 2026 The libagents authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import collections
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

SOURCE, BUILD, CC = sys.argv[1:4]
FILES = sys.argv[4:] or (
    ["README.md"]
    + sorted(os.path.relpath(p, SOURCE) for p in glob.glob(os.path.join(SOURCE, "docs", "*.md")))
    + sorted(os.path.relpath(p, SOURCE)
             for p in glob.glob(os.path.join(SOURCE, "docs", "reference", "*.md"))))
TIMEOUT = 120  # seconds a sample may take to build or run, on a loaded machine
RUNNABLE = {"c": "c", "python": "python", "py": "python", "js": "js",
            "javascript": "js", "json": "json"}
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)[^`]*$")
MARKER = re.compile(r"^\s*<!--\s*sample:\s*(fragment|skip|output)\b\s*(.*?)\s*-->\s*$")

Block = collections.namedtuple("Block", "path line lang code marker reason")


def blocks_of(path):
    """The fenced blocks of the Markdown file @path, with their markers."""
    with open(os.path.join(SOURCE, path), encoding="utf-8") as f:
        lines = f.read().splitlines()
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        indent, fence, lang = opening.groups()
        marker = reason = None
        # The marker, one blank line or none above the fence (a blank line
        # keeps Markdown renderers from taking the fence into the comment).
        above = i - 1
        if above > 0 and not lines[above].strip():
            above -= 1
        m = MARKER.match(lines[above]) if above >= 0 else None
        if m:
            marker, reason = m.group(1), m.group(2)
        start = i + 1
        i += 1
        while i < len(lines) and not (lines[i].strip().startswith(fence)
                                      and lines[i].strip().strip(fence[0]) == ""):
            i += 1
        code = "\n".join(line[len(indent):] if line.startswith(indent) else line
                         for line in lines[start:i]) + "\n"
        yield Block(path, start, lang.lower(), code, marker, reason)
        i += 1


count = 0
failed = 0
tally = collections.Counter()


def report(ok, name, details=""):
    global count, failed
    count += 1
    if not ok:
        failed += 1
    print("%s %d - %s" % ("ok" if ok else "not ok", count, name))
    if not ok and details:
        for line in details.rstrip().splitlines()[-60:]:
            print("# " + line)
    sys.stdout.flush()


def run(argv, cwd):
    """(status, stdout, stderr) of @argv with TMPDIR=@cwd/tmp; a timeout,
    or anything left in that TMPDIR, is a failure."""
    tmpdir = os.path.join(cwd, "tmp")
    os.makedirs(tmpdir, exist_ok=True)
    try:
        done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True,
                              timeout=TIMEOUT, stdin=subprocess.DEVNULL,
                              env=dict(os.environ, TMPDIR=tmpdir))
    except subprocess.TimeoutExpired as e:
        return -1, e.stdout or "", "timed out after %d s\n" % TIMEOUT
    left = os.listdir(tmpdir)
    if done.returncode == 0 and left:
        return 1, done.stdout, done.stderr + "left behind in TMPDIR: %s\n" % left
    return done.returncode, done.stdout, done.stderr


def pkg_config():
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(BUILD, "meson-uninstalled"))
    done = subprocess.run(["pkg-config", "--cflags", "--libs", "agents-1.0"],
                          env=env, capture_output=True, text=True, check=True)
    return shlex.split(done.stdout)


FLAGS = None


def run_c(block, tmp):
    global FLAGS
    if FLAGS is None:
        FLAGS = pkg_config()
    source = os.path.join(tmp, "sample.c")
    with open(source, "w") as f:
        f.write(block.code)
    program = os.path.join(tmp, "sample")
    status, out, err = run(shlex.split(CC) + ["-std=gnu11", "-Wall", "-Werror",
                                             "-Wno-unused-parameter", source,
                                             "-o", program] + FLAGS, tmp)
    if status != 0:
        return status, out, "compiling failed:\n" + err
    return run([program], tmp)


def run_python(block, tmp):
    source = os.path.join(tmp, "sample.py")
    with open(source, "w") as f:
        f.write(block.code)
    return run(["/usr/bin/python3", source], tmp)


def run_js(block, tmp):
    source = os.path.join(tmp, "sample.js")
    with open(source, "w") as f:
        f.write(block.code)
    return run(["gjs", "-m", source], tmp)


def syntax_check(block, tmp):
    """(ok, details) of checking a fragment's syntax only."""
    lang = RUNNABLE[block.lang]
    if lang == "python":
        try:
            compile(block.code, "%s:%d" % (block.path, block.line), "exec")
        except SyntaxError as e:
            return False, "SyntaxError: %s (line %s)" % (e.msg, e.lineno)
        return True, ""
    if lang == "js":
        source = os.path.join(tmp, "fragment.js")
        with open(source, "w") as f:
            f.write(block.code)
        checker = ("const [, c] = imports.gi.GLib.file_get_contents(ARGV[0]);"
                   "Reflect.parse(new TextDecoder().decode(c), {target: 'module'});")
        status, out, err = run(["gjs", "-c", checker, source], tmp)
        return status == 0, err
    if lang == "json":
        # An elided part ("…") stands for any value or members.
        text = re.sub(r",?\s*…\s*", " ", block.code)
        try:
            json.loads(text)
        except ValueError as e:
            return False, str(e)
        return True, ""
    return None, "C fragments are not compiled"


def check_block(block, last_run):
    """Checks one block; returns the output of a sample it ran (for a
    following `output` block), else None."""
    name = "%s:%d %s" % (block.path, block.line, block.lang or "text")
    if block.marker == "output":
        if last_run is None:
            report(False, name + " output", "no sample ran just before this output block")
        else:
            report(last_run == block.code, name + " is the output of the sample above",
                   "expected:\n%s\ngot:\n%s" % (block.code, last_run))
        tally["output compared"] += 1
        return None
    lang = RUNNABLE.get(block.lang)
    if lang is None:
        tally["commands or text, not run"] += 1
        return None
    if block.marker in ("fragment", "skip") and not block.reason:
        report(False, name + " is marked without a reason")
        return None
    if block.marker == "skip":
        tally["skipped"] += 1
        print("# skipped %s: %s" % (name, block.reason))
        return None
    tmp = tempfile.mkdtemp(prefix="docs-sample-")
    try:
        if block.marker == "fragment":
            ok, details = syntax_check(block, tmp)
            if ok is None:
                tally["C fragments, not compiled"] += 1
                print("# skipped %s (C fragment): %s" % (name, block.reason))
                return None
            tally["fragments syntax-checked"] += 1
            report(ok, name + " (fragment, syntax checked: %s)" % block.reason, details)
            return None
        if lang == "json":
            try:
                json.loads(block.code)
                ok, details = True, ""
            except ValueError as e:
                ok, details = False, str(e)
            tally["json parsed"] += 1
            report(ok, name + " parses", details)
            return None
        status, out, err = {"c": run_c, "python": run_python, "js": run_js}[lang](block, tmp)
        tally["%s samples run" % lang] += 1
        report(status == 0, name + " runs", "exit status %d\n%s%s" % (status, out, err))
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    for path in FILES:
        last_run = None
        for block in blocks_of(path):
            last_run = check_block(block, last_run)
    for what, n in sorted(tally.items()):
        print("# %s: %d" % (what, n))
    print("1..%d" % count)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
