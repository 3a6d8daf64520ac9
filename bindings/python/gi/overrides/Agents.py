# Agents.py - PyGObject overrides for libagents
#
# Copyright 2026 The libagents authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Pythonic conveniences on top of the introspected API:
#
# - Agents.function_tool: a decorator that turns a Python function into an
#   Agents.FunctionTool, its JSON schema built from the type hints and the
#   docstring (like the reference's @function_tool);
# - Agents.Runner.run_sync: runs an agent to its end without a main loop
#   of the caller's, returning the Agents.RunResult or raising GLib.Error;
# - Agents.Runner.arun and Agents.awaitable: the same as asyncio
#   coroutines (PyGObject 3.42 has no awaitable _async methods of its own);
# - Agents.Capability: a do_get_tools of a Python capability may return
#   any iterable of tools (PyGObject itself takes a list only: a tuple
#   is read as return value and out arguments), and one that returns
#   something else fails naming the item.

import asyncio
import functools
import inspect
import json
import re
import typing

from gi.repository import GLib, Json

from ..module import get_introspection_module
from ..overrides import override

Agents = get_introspection_module("Agents")

__all__ = []

_NONE_TYPE = type(None)

_SIMPLE_TYPES = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
}


def _schema_for(annotation, where):
    """The JSON schema of one type hint."""
    if annotation in _SIMPLE_TYPES:
        return {"type": _SIMPLE_TYPES[annotation]}
    if annotation in (list, typing.List):
        return {"type": "array", "items": {}}
    if annotation in (dict, typing.Dict):
        return {"type": "object"}
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Union:
        members = [a for a in args if a is not _NONE_TYPE]
        if len(members) == 1 and len(args) == 2:
            return {"anyOf": [_schema_for(members[0], where), {"type": "null"}]}
        return {"anyOf": [_schema_for(a, where) if a is not _NONE_TYPE
                          else {"type": "null"} for a in args]}
    if origin is list:
        items = _schema_for(args[0], where) if args else {}
        return {"type": "array", "items": items}
    if origin is dict:
        if args and args[0] is not str:
            raise TypeError("%s: dict keys must be str" % where)
        schema = {"type": "object"}
        if len(args) == 2:
            schema["additionalProperties"] = _schema_for(args[1], where)
        return schema
    if origin is typing.Literal:
        return {"enum": list(args)}
    raise TypeError("%s: unsupported type hint %r" % (where, annotation))


_SECTION_RE = re.compile(r"^\s*(Args|Arguments|Parameters|Returns|Return|"
                         r"Raises|Yields|Examples?|Notes?)\s*:\s*$")
_SPHINX_PARAM_RE = re.compile(r"^\s*:param\s+(?:\S+\s+)?(\w+)\s*:\s*(.*)$")
_GOOGLE_PARAM_RE = re.compile(r"^\s*(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


def _parse_docstring(doc):
    """The description and the per-parameter descriptions of a docstring,
    in Sphinx (":param x: ...") or Google ("Args:" then "x: ...") style."""
    if not doc:
        return None, {}
    lines = inspect.cleandoc(doc).splitlines()
    summary = []
    params = {}
    section = None
    current = None
    params_indent = 0
    for line in lines:
        header = _SECTION_RE.match(line)
        sphinx = _SPHINX_PARAM_RE.match(line)
        if sphinx:
            current = sphinx.group(1)
            params[current] = sphinx.group(2).strip()
            section = "sphinx"
            continue
        if header:
            section = header.group(1).lower()
            current = None
            continue
        if line.strip().startswith(":"):
            # :returns:, :raises: and the like end a :param: description.
            section = "sphinx-other"
            current = None
            continue
        if section is None:
            summary.append(line)
        elif section in ("args", "arguments", "parameters"):
            google = _GOOGLE_PARAM_RE.match(line)
            indent = len(line) - len(line.lstrip())
            if google and (current is None or indent <= params_indent):
                current = google.group(1)
                params_indent = indent
                params[current] = google.group(2).strip()
            elif current is not None and line.strip():
                params[current] = (params[current] + " " + line.strip()).strip()
        elif section == "sphinx" and current is not None and line.strip():
            params[current] = (params[current] + " " + line.strip()).strip()
    description = "\n".join(summary).strip() or None
    return description, params


def _build_schema(func, skip_first):
    signature = inspect.signature(func)
    hints = typing.get_type_hints(func)
    description, param_docs = _parse_docstring(func.__doc__)
    properties = {}
    names = []
    parameters = list(signature.parameters.values())
    if skip_first:
        parameters = parameters[1:]
    for param in parameters:
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise TypeError("%s: *args and **kwargs cannot be tool parameters"
                            % func.__name__)
        if param.name not in hints:
            raise TypeError("%s: parameter %s has no type hint"
                            % (func.__name__, param.name))
        prop = _schema_for(hints[param.name], "%s(%s)" % (func.__name__, param.name))
        if param.name in param_docs:
            prop["description"] = param_docs[param.name]
        properties[param.name] = prop
        names.append(param.name)
    schema = {
        "type": "object",
        "properties": properties,
        # Strict mode: every property is required; Optional ones accept null.
        "required": names,
        "additionalProperties": False,
    }
    return schema, description, signature


def _wants_context(func):
    """Whether the function's first parameter takes the Agents.RunContext."""
    parameters = list(inspect.signature(func).parameters.values())
    if not parameters:
        return False
    hints = typing.get_type_hints(func)
    return hints.get(parameters[0].name) is Agents.RunContext


def function_tool(func=None, *, name=None, description=None,
                  needs_approval=False):
    """Turns a typed Python function into an Agents.FunctionTool.

    The tool's name is the function's name (or @name), its description the
    docstring's text before any parameter section (or @description). Each
    parameter becomes a property of the JSON schema: str, int, float, bool,
    list, dict, typing.List[T], typing.Dict[str, T], typing.Optional[T] and
    typing.Literal; descriptions come from ":param x:" lines or a
    Google-style "Args:" section. A first parameter annotated
    Agents.RunContext receives the run context. The function's return value
    is given to the model as text (str() of it, JSON for dicts and lists).

    Usable as @function_tool or @function_tool(name=..., ...).
    """
    def build(func):
        with_context = _wants_context(func)
        schema, doc_description, signature = _build_schema(func, with_context)
        parameter_names = list(schema["properties"])

        def call(ctx, arguments):
            values = json.loads(arguments) if arguments else {}
            if not isinstance(values, dict):
                raise ValueError("the arguments are not a JSON object")
            unknown = set(values) - set(parameter_names)
            if unknown:
                raise ValueError("unknown arguments: %s" % ", ".join(sorted(unknown)))
            kwargs = {}
            for param_name in parameter_names:
                if param_name in values:
                    kwargs[param_name] = values[param_name]
                elif signature.parameters[param_name].default is inspect.Parameter.empty:
                    raise ValueError("missing argument: %s" % param_name)
            result = func(ctx, **kwargs) if with_context else func(**kwargs)
            if isinstance(result, str):
                return result
            if isinstance(result, (dict, list)):
                return json.dumps(result)
            return str(result)

        def body(ctx, arguments):
            # A failure goes to the model as text, the way C function tools
            # report theirs by default (agents_function_tool_default_error_message).
            try:
                return call(ctx, arguments)
            except Exception as error:
                return ("An error occurred while running the tool. Please "
                        "try again. Error: %s" % error)

        params = Json.from_string(json.dumps(schema)).get_object()
        tool = Agents.FunctionTool.new(name or func.__name__,
                                       description or doc_description or "",
                                       params, body)
        tool.set_needs_approval(needs_approval)
        tool.func = func
        return tool

    if func is not None:
        return build(func)
    return build


__all__.append("function_tool")


def _input_node(input):
    if isinstance(input, Json.Node):
        return input
    if isinstance(input, str):
        node = Json.Node.new(Json.NodeType.VALUE)
        node.set_string(input)
        return node
    if isinstance(input, Json.Array):
        return Json.Node.alloc().init_array(input)
    # A list of input items as Python values.
    return Json.from_string(json.dumps(input))


def _run_sync(start, finish):
    """Runs start(callback) on a private main context until it completes
    and returns finish(result); errors raise."""
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


# How long an awaitable sleeps between looks at its GLib main context.
_POLL_INTERVAL = 0.002


async def awaitable(obj, method, *args):
    """Awaits obj.METHOD_async(*args, callback) and returns what
    obj.METHOD_finish returns (a GLib.Error is raised).

    The operation runs on a private GLib main context that is iterated
    between asyncio steps, so other coroutines go on meanwhile; pass every
    argument of METHOD_async before the callback (the cancellable too)."""
    context = GLib.MainContext.new()
    results = []

    def done(_source, result):
        results.append(result)

    def step(func, *func_args):
        # Operations started from callbacks attach to the thread-default
        # context: make it ours while ours runs, never across an await.
        context.push_thread_default()
        try:
            return func(*func_args)
        finally:
            context.pop_thread_default()

    step(getattr(obj, method + "_async"), *args, done)
    while not results:
        dispatched = step(context.iteration, False)
        await asyncio.sleep(0 if dispatched else _POLL_INTERVAL)
    return getattr(obj, method + "_finish")(results[0])


__all__.append("awaitable")


class Runner(Agents.Runner):
    def run_sync(self, agent, input, config=None, session=None, context=None,
                 cancellable=None):
        """Runs @agent on @input (a str, a Json.Node, a Json.Array or a list
        of input items) until its final output, on a private main context.
        Returns the Agents.RunResult; raises GLib.Error when the run fails."""
        node = _input_node(input)
        return _run_sync(
            lambda done: self.run_async(agent, node, config, session, context,
                                        cancellable, done),
            self.run_finish)

    async def arun(self, agent, input, config=None, session=None, context=None,
                   cancellable=None):
        """Runs @agent on @input like run_sync(), as an asyncio coroutine."""
        return await awaitable(self, "run", agent, _input_node(input), config,
                               session, context, cancellable)

    def resume_sync(self, agent, state, config=None, session=None,
                    cancellable=None):
        """Resumes a run from @state (an Agents.RunState) like run_sync()."""
        return _run_sync(
            lambda done: self.resume_async(agent, state, config, session,
                                           cancellable, done),
            self.resume_finish)


Runner = override(Runner)
__all__.append("Runner")


def _checked_get_tools(get_tools):
    """Wraps a Python do_get_tools: whatever iterable it returns becomes
    the list PyGObject hands to C; an item that is not an Agents.Tool
    raises a TypeError that names it (PyGObject prints it, and the
    capability then gives no tools)."""
    @functools.wraps(get_tools)
    def do_get_tools(self):
        tools = get_tools(self)
        if tools is None:
            return []
        if isinstance(tools, Agents.Tool):
            raise TypeError("%s.do_get_tools must return a list of tools, not one tool"
                            % type(self).__name__)
        tools = list(tools)
        for index, tool in enumerate(tools):
            if not isinstance(tool, Agents.Tool):
                hint = (" (make it a tool with @Agents.function_tool)"
                        if callable(tool) and not isinstance(tool, Agents.Tool) else "")
                raise TypeError("%s.do_get_tools: item %d is %r, not an Agents.Tool%s"
                                % (type(self).__name__, index, tool, hint))
        return tools

    do_get_tools._agents_checked = True
    return do_get_tools


class Capability(Agents.Capability):
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # Before PyGObject registers the class and hooks its do_* methods.
        get_tools = cls.__dict__.get("do_get_tools")
        if get_tools is not None and not getattr(get_tools, "_agents_checked", False):
            cls.do_get_tools = _checked_get_tools(get_tools)


Capability = override(Capability)
__all__.append("Capability")
