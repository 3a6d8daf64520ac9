#!/usr/bin/env python3
# agents-man.py - writes the agents(1) manual page from the program itself
#
# Usage: agents-man.py AGENTS_BINARY VERSION OUTPUT
#
# The commands, their summaries, synopses, options and descriptions come
# from `agents help` and `agents COMMAND --help` (the command table and
# the GOptionContext of each command in tools/), so that the manual page
# and the help text cannot disagree.
#
# Copyright 2026 The libagents authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import os
import re
import subprocess
import sys

agents, version, output = sys.argv[1:4]
# In a sanitizer build the program's leaks are the tests' business, not
# the page's.
env = dict(os.environ, LC_ALL="C.UTF-8", LANGUAGE="", ASAN_OPTIONS="detect_leaks=0")


def run(*args):
    result = subprocess.run(
        [agents, *args], env=env, capture_output=True, text=True, check=True
    )
    return result.stdout


SPECIAL = {"\u201c": "\\(lq", "\u201d": "\\(rq", "\u2026": "...", "\u2019": "'"}


def roff(text):
    """@text escaped for roff, on one line, in ASCII."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    text = "".join(
        c if ord(c) < 128 else SPECIAL.get(c, "\\[u%04X]" % ord(c)) for c in text
    )
    if text.startswith((".", "'")):
        text = "\\&" + text
    return text


def commands():
    """(name, summary) of every command, in the order of `agents help`."""
    found = []
    for line in run("help").splitlines():
        match = re.match(r"^  (\S+)\s+(.*)$", line)
        if match:
            found.append((match.group(1), match.group(2)))
    return found


def sections(help_text):
    """The parts of a GOptionContext --help: usage, summary, options
    (switches, argument, description), description."""
    lines = help_text.splitlines()
    usage = ""
    summary, options, description = [], [], []
    part = None
    for line in lines:
        if line == "Usage:":
            part = "usage"
            continue
        if part == "usage" and line.strip():
            usage = line.strip()
            part = "summary"
            continue
        if line.endswith("Options:") and not line.startswith(" "):
            part = "help" if line.startswith("Help") else "options"
            continue
        if part == "help":
            if not line.strip():
                part = "after-options"
            continue
        if part == "options":
            match = re.match(r"^  (\S.*?)\s{2,}(\S.*)$", line)
            if match:
                options.append((match.group(1), match.group(2)))
                continue
            if not line.strip():
                part = "after-options"
            continue
        if part == "summary":
            summary.append(line)
        elif part == "after-options":
            description.append(line)
    return usage, "\n".join(summary).strip(), options, "\n".join(description).strip()


def option_switches(switches):
    """`-b, --backend=NAME` in bold with the argument in italics."""
    parts = []
    for switch in switches.split(", "):
        name, _, argument = switch.partition("=")
        text = "\\fB" + roff(name) + "\\fR"
        if argument:
            text += "=\\fI" + roff(argument) + "\\fR"
        parts.append(text)
    return ", ".join(parts)


def paragraphs(text):
    out = []
    for block in re.split(r"\n\s*\n", text):
        if not block.strip():
            continue
        out.append(".PP")
        # GOption wraps its text for a terminal; the page reflows it.
        out.append(roff(" ".join(line.strip() for line in block.splitlines())))
    return out


page = [
    '.TH AGENTS 1 "" "agents %s" "User Commands"' % version,
    ".SH NAME",
    "agents \\- run LLM agents that work in sandboxes",
    ".SH SYNOPSIS",
    ".B agents",
    ".I COMMAND",
    ".RI [ OPTION ...]",
    ".br",
    ".B agents",
    ".BR help \" [\" \\fICOMMAND\\fR ]",
    ".br",
    ".B agents",
    ".B \\-\\-version",
    ".SH DESCRIPTION",
    "The agents program runs the agents described by agent files (JSON)",
    "of libagents: their tools work in a sandbox (a confined local",
    "directory or a container) whose workspace is saved when they stop.",
    ".SH COMMANDS",
]
for name, summary in commands():
    usage, long_summary, options, description = sections(run(name, "--help"))
    page.append('.SS "%s"' % roff(usage or "agents " + name))
    page.append(roff(summary))
    if long_summary:
        page += paragraphs(long_summary)
    for switches, text in options:
        page.append(".TP")
        page.append(option_switches(switches))
        page.append(roff(text))
    if description:
        page += paragraphs(description)
page += [
    ".SH ENVIRONMENT",
    ".TP",
    ".B AGENTS_PLUGIN_PATH",
    "Directories (separated by colons) searched for sandbox backend plugins",
    "before the installed plugin directory.",
    ".TP",
    ".B OPENAI_API_KEY",
    "The key of the openai: and chat: model providers.",
    ".TP",
    ".B OPENAI_BASE_URL",
    "The model server of the openai: and chat: providers, unless",
    "\\fB\\-\\-base\\-url\\fR is given.",
    ".TP",
    ".B XDG_CACHE_HOME",
    "Workspaces and snapshots live in \\fI$XDG_CACHE_HOME/agents\\-1.0\\fR.",
    ".TP",
    ".B XDG_STATE_HOME",
    "Chats are saved in \\fI$XDG_STATE_HOME/agents\\-1.0/chats\\fR unless",
    "\\fB\\-\\-state\\fR names a file.",
    ".SH SEE ALSO",
    "The agent file format and the program's guide: \\fIagent\\-file.md\\fR",
    "in the libagents documentation.",
]
with open(output, "w", encoding="utf-8") as f:
    f.write("\n".join(page) + "\n")
