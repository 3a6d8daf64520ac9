#!/usr/bin/python3
# test_annotations.py - the container annotations of the Agents typelib
#
# Copyright 2026 The libagents authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Walks every function, method, virtual method, signal and callback of the
# Agents typelib. Each list, array or hash table they return, take or give
# back must name its element types (not gpointer); C arrays must say where
# they end; the container returns and out-arguments of public functions
# must have an explicit (transfer ...) in their doc comment, since the
# default is a guess; a GPtrArray handed to the caller is (transfer
# container), as libagents' arrays free their elements themselves (with
# (transfer full) PyGObject 3.42 frees them a second time). Then calls a representative set of the functions
# returning containers from Python and reads every element (PyGObject 3.42
# crashed on some of them when the transfer did not match the code).
# Prints TAP.

import os
import re
import sys
import traceback

import gi

gi.require_version("Agents", "1.0")
gi.require_version("GIRepository", "2.0")
gi.require_version("Json", "1.0")
from gi._gi import Repository  # noqa: E402
from gi.repository import Agents, GIRepository, GLib, Json  # noqa: E402

SOURCE_ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                            "..", ".."))
Tag = GIRepository.TypeTag
ArrayType = GIRepository.ArrayType
Direction = GIRepository.Direction
CONTAINER_TAGS = {Tag.GLIST, Tag.GSLIST, Tag.GHASH, Tag.ARRAY}



# Arrays handed over (transfer full) with no free function, as GI means
# it: the caller takes the elements' references. get_tools must be so
# because its virtual function shares the annotation, and a Python
# implementation must hand over references to the tools it returns.
FULL_ARRAYS_WITHOUT_FREE_FUNC = {"agents_capability_get_tools"}

def check(condition, what):
    if not condition:
        raise AssertionError(what)


def check_equal(got, expected, what):
    if got != expected:
        raise AssertionError("%s: expected %r, got %r" % (what, expected, got))


def callables():
    """(name, callable info, kind) of everything callable in the typelib."""
    for info in Repository.get_default().get_infos("Agents"):
        kind = type(info).__name__
        if kind in ("FunctionInfo", "CallbackInfo"):
            yield info.get_name(), info, kind
        if kind in ("ObjectInfo", "InterfaceInfo", "StructInfo"):
            for method in info.get_methods():
                yield "%s.%s" % (info.get_name(), method.get_name()), method, "FunctionInfo"
        if kind in ("ObjectInfo", "InterfaceInfo"):
            for vfunc in info.get_vfuncs():
                yield "%s.do_%s" % (info.get_name(), vfunc.get_name()), vfunc, "VFuncInfo"
            for signal in info.get_signals():
                yield "%s::%s" % (info.get_name(), signal.get_name()), signal, "SignalInfo"


def container_slots(info):
    """(slot name, type info, arg info or None) of the containers of a callable."""
    slots = [("return", info.get_return_type(), None)]
    slots += [(arg.get_name(), arg.get_type(), arg) for arg in info.get_arguments()]
    return [s for s in slots if s[1].get_tag() in CONTAINER_TAGS]


def element_problems(name, slot, type_info):
    problems = []
    tag = type_info.get_tag()
    n_params = 2 if tag == Tag.GHASH else 1
    for i in range(n_params):
        param = type_info.get_param_type(i)
        if param is None or param.get_tag() == Tag.VOID:
            problems.append("%s: %s has no element-type" % (name, slot))
        elif param.get_tag() in CONTAINER_TAGS:
            problems += element_problems(name, slot + " elements", param)
    if (tag == Tag.ARRAY and type_info.get_array_type() == ArrayType.C
            and not type_info.is_zero_terminated()
            and type_info.get_array_length() < 0
            and type_info.get_array_fixed_size() < 0):
        problems.append("%s: %s is a C array with no length, size or "
                        "zero-terminated" % (name, slot))
    return problems


_doc_comments = None


def doc_comments():
    """Every gtk-doc comment of libagents, by the symbol it documents."""
    global _doc_comments
    if _doc_comments is None:
        _doc_comments = {}
        pattern = re.compile(r"/\*\*\s*\n\s*\*\s*([A-Za-z_][\w:]*):?\s*\n(.*?)\*/", re.S)
        for directory, _dirs, files in os.walk(os.path.join(SOURCE_ROOT, "libagents")):
            for file in files:
                if file.endswith((".c", ".h")):
                    with open(os.path.join(directory, file), encoding="utf-8") as f:
                        for match in pattern.finditer(f.read()):
                            _doc_comments[match.group(1).rstrip(":")] = match.group(2)
    return _doc_comments


def doc_clause(comment, slot):
    """The text of the Returns: or @slot: clause of a doc comment."""
    lines = [re.sub(r"^\s*\*\s?", "", line) for line in comment.splitlines()]
    head = re.compile(r"^Returns:" if slot == "return" else r"^@%s:" % re.escape(slot))
    clause = None
    for line in lines:
        if clause is None:
            if head.match(line):
                clause = line
        elif re.match(r"^(@\w+:|Returns:|Since:)", line) or not line.strip():
            break
        else:
            clause += " " + line.strip()
    return clause


def test_element_types():
    problems = []
    count = 0
    for name, info, _kind in callables():
        for slot, type_info, _arg in container_slots(info):
            count += 1
            problems += element_problems(name, slot, type_info)
    check(count >= 40, "only %d container slots found" % count)
    check(not problems, "\n".join(problems))


def test_transfer_annotated():
    problems = []
    count = 0
    comments = doc_comments()
    for name, info, kind in callables():
        if kind != "FunctionInfo":
            continue
        for slot, type_info, arg in container_slots(info):
            if arg is not None and arg.get_direction() == Direction.IN:
                continue
            count += 1
            symbol = info.get_symbol()
            comment = comments.get(symbol)
            if comment is None:
                problems.append("%s: no doc comment" % symbol)
                continue
            clause = doc_clause(comment, slot)
            if clause is None or "(transfer " not in clause:
                problems.append("%s: %s has no (transfer ...) annotation"
                                % (symbol, slot))
            transfer = (info.get_caller_owns() if arg is None
                        else arg.get_ownership_transfer())
            if (type_info.get_tag() == Tag.ARRAY
                    and type_info.get_array_type() == ArrayType.PTR_ARRAY
                    and transfer == GIRepository.Transfer.EVERYTHING
                    and symbol not in FULL_ARRAYS_WITHOUT_FREE_FUNC):
                problems.append("%s: %s is a GPtrArray with (transfer full); "
                                "its free function frees the elements: "
                                "(transfer container)" % (symbol, slot))
    check(count >= 20, "only %d container returns found" % count)
    check(not problems, "\n".join(problems))


def read_all(array, what, expected_type=None):
    """Reads every element of a returned list and checks its type."""
    check(isinstance(array, list), "%s: not a list but %r" % (what, type(array)))
    for element in array:
        if expected_type is not None:
            check(isinstance(element, expected_type),
                  "%s: element %r is not a %s" % (what, element, expected_type.__name__))
        if isinstance(element, str):
            element.encode("utf-8")
        elif hasattr(element, "get_property") and hasattr(element, "list_properties"):
            for pspec in element.list_properties():
                if pspec.flags & gi.repository.GObject.ParamFlags.READABLE:
                    element.get_property(pspec.name)
    return array


MANIFEST = {
    "entries": {
        "hello.txt": {"type": "file", "content": "hi\n"},
        "src": {"type": "dir", "children": {"a.txt": {"type": "file", "content": "a"}}},
    },
    "environment": {"A": "1", "B": "2"},
}


def test_call_and_read():
    import json

    ls = ("total 8\n"
          "drwx------  3 root root 4096 Nov 30 08:40 .\n"
          "drwxrwxrwt 13 root root 4096 Nov 30 08:40 ..\n"
          "-rw-r--r--  1 root root    3 Nov 30 08:40 a.txt\n"
          "drwxr-xr-x  2 app  staff 4096 Nov 30 08:40 sub\n")
    for _ in range(3):  # repeated: a double free shows on a later round
        entries = read_all(Agents.FileEntry.parse_ls(ls, "/workspace"), "parse_ls",
                           Agents.FileEntry)
        check_equal([e.get_path() for e in entries], ["/workspace/a.txt", "/workspace/sub"],
                    "parse_ls paths")

        manifest = Agents.Manifest.new_from_data(json.dumps(MANIFEST), -1)
        check_equal(sorted(read_all(manifest.get_entry_paths(), "entry paths", str)),
                    ["hello.txt", "src"], "entry paths")
        check_equal(sorted(read_all(manifest.get_env_names(), "env names", str)),
                    ["A", "B"], "env names")
        targets = read_all(manifest.list_targets(False), "list_targets", Agents.EntryTarget)
        check(len(targets) >= 2, "list_targets found the entries")
        read_all(manifest.list_mounts(), "list_mounts")
        read_all(manifest.get_mount_paths(), "mount paths", str)
        read_all(manifest.get_users(), "users", Agents.User)
        read_all(manifest.get_groups(), "groups", Agents.Group)
        read_all(manifest.get_extra_path_grants(), "extra path grants")
        read_all(manifest.get_remote_mount_command_allowlist(), "allowlist", str)
        read_all(Agents.Manifest.get_default_remote_mount_command_allowlist(),
                 "default allowlist", str)

        capabilities = read_all(Agents.sandbox_default_capabilities(),
                                "default capabilities", Agents.Capability)
        check(capabilities, "default capabilities")
        tools = []
        for capability in capabilities:
            tools += read_all(capability.get_tools(), "capability tools", Agents.Tool)
        check(tools, "the default capabilities give tools")

        for kind in (Agents.RegistryKind.SANDBOX_CLIENT, Agents.RegistryKind.CAPABILITY,
                     Agents.RegistryKind.MODEL_PROVIDER, Agents.RegistryKind.ENTRY_TYPE):
            check(read_all(Agents.registry_list(kind), "registry_list", str),
                  "registry_list(%s) is empty" % kind.value_nick)
        read_all(Agents.registry_list_plugins(), "registry_list_plugins", str)

        worker = Agents.Agent.new("worker")
        agent = Agents.Agent.new("triage")
        agent.add_handoff(worker)
        handoffs = read_all(agent.get_handoff_objects(), "handoff objects")
        check_equal(len(handoffs), 1, "one handoff")
        agent.set_stop_at_tool_names(["x", "y"])
        check_equal(read_all(agent.get_stop_at_tool_names(), "stop at", str), ["x", "y"],
                    "stop-at tool names")

        settings = Agents.ModelSettings.new()
        settings.set_response_include(["reasoning.encrypted_content"])
        check_equal(read_all(settings.get_response_include(), "include", str),
                    ["reasoning.encrypted_content"], "response include")

        request = Agents.ModelRequest.new()
        request.set_tools(tools)
        check_equal(len(read_all(request.get_tools(), "request tools", Agents.Tool)),
                    len(tools), "request tools")

        processor = Agents.TestTracingProcessor.new()
        read_all(processor.get_events(), "tracing events", str)
        del entries, manifest, targets, capabilities, tools, handoffs


def run_sync(start, finish):
    context = GLib.MainContext.new()
    loop = GLib.MainLoop.new(context, False)
    results = []

    def done(_source, result):
        results.append(result)
        loop.quit()

    context.push_thread_default()
    try:
        start(done)
        if not results:
            loop.run()
    finally:
        context.pop_thread_default()
    return finish(results[0])


def test_session_lists():
    import json

    manifest = Agents.Manifest.new_from_data(json.dumps(MANIFEST), -1)
    client = Agents.registry_new_sandbox_client("unix_local")
    session = run_sync(lambda done: client.create_async(manifest, None, None, None, done),
                       client.create_finish)
    try:
        run_sync(lambda done: session.start_async(None, done), session.start_finish)
        applied = run_sync(lambda done: session.apply_manifest_async(False, None, done),
                           session.apply_manifest_finish)
        read_all(applied, "apply_manifest_finish")
        check(applied, "apply_manifest gave materialized files")
        listing = run_sync(lambda done: session.ls_async(".", None, done), session.ls_finish)
        names = sorted(os.path.basename(listing.get_item(i).get_path())
                       for i in range(listing.get_n_items()))
        check_equal(names, ["hello.txt", "src"], "ls")
    finally:
        run_sync(lambda done: session.shutdown_async(None, done), session.shutdown_finish)
        run_sync(lambda done: client.delete_async(session, None, done), client.delete_finish)


TESTS = [
    ("every container has element types", test_element_types),
    ("container returns and out-arguments have explicit transfer", test_transfer_annotated),
    ("container returns called and read from Python", test_call_and_read),
    ("session container returns read from Python", test_session_lists),
]


def main():
    print("1..%d" % len(TESTS))
    failed = 0
    for number, (name, test) in enumerate(TESTS, 1):
        try:
            test()
        except Exception:
            failed += 1
            print("not ok %d - %s" % (number, name))
            for line in traceback.format_exc().splitlines():
                print("# " + line)
        else:
            print("ok %d - %s" % (number, name))
        sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
