#!/usr/bin/python3
# test-cli-chat.py - `agents chat` through a pseudo-terminal (TAP).
#
# A small pty driver types prompts as a user does, reads what the program
# prints, answers approvals inline, sends Ctrl-C in the middle of a turn
# and at the prompt, ends the chat with Ctrl-D and resumes the saved chat
# in a new process; then chats with the demo agent through the chat
# (Chat Completions) provider, answered by the loopback model server.
#
# Usage: test-cli-chat.py AGENTS_BINARY MODEL_SERVER DATA_DIR SOURCE_ROOT
# AGENTS_PLUGIN_PATH must point at the built plugin modules.
#
# Copyright 2026 The libagents authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import fcntl
import json
import os
import pty
import re
import select
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import termios
import time

AGENTS, SERVER, DATA, SOURCE = sys.argv[1:5]
KEY = "sk-demo-secret"
TIMEOUT = 30
ESCAPES = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Za-z0-9]|\r")

tmp = tempfile.mkdtemp(prefix="test-cli-chat-")
os.makedirs(os.path.join(tmp, "tmpdir"))
env = dict(os.environ)
env.update(
    {
        "TMPDIR": os.path.join(tmp, "tmpdir"),
        "XDG_CACHE_HOME": os.path.join(tmp, "cache"),
        "XDG_STATE_HOME": os.path.join(tmp, "state"),
        "TERM": "xterm",
        "INPUTRC": "/dev/null",
        "LC_ALL": "C.UTF-8",
    }
)
for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_DEFAULT_MODEL"):
    env.pop(name, None)

count = 0
failed = 0


def report(ok, name, chat=None):
    global count, failed
    count += 1
    if not ok:
        failed += 1
    print(("ok" if ok else "not ok") + " %d - %s" % (count, name))
    if not ok and chat is not None:
        for line in chat.text().splitlines():
            print("# " + line)
    sys.stdout.flush()


running = []


def stop_all():
    """A failed check may leave a chat running: SIGTERM saves and ends
    it, SIGKILL when it does not end."""
    for chat in running:
        if chat.status is None:
            os.kill(chat.pid, signal.SIGTERM)
            if chat.wait(timeout=10) is None:
                chat.status = -1


class Chat:
    """`agents chat` in a pseudo-terminal."""

    def __init__(self, *args, extra_env=None):
        self.output = b""
        self.seen = 0  # what expect() has matched so far
        self.status = None
        pid, fd = pty.fork()
        if pid == 0:
            os.execve(AGENTS, [AGENTS, "chat", *args], {**env, **(extra_env or {})})
        self.pid, self.fd = pid, fd
        running.append(self)
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 160, 0, 0))

    def text(self):
        return ESCAPES.sub(b"", self.output).decode("utf-8", "replace")

    def _read(self, deadline):
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        ready, _, _ = select.select([self.fd], [], [], left)
        if not ready:
            return False
        try:
            data = os.read(self.fd, 65536)
        except OSError:
            data = b""
        if not data:
            return False
        self.output += data
        return True

    def expect(self, text, timeout=TIMEOUT):
        """Waits until @text appears after what was matched before."""
        deadline = time.monotonic() + timeout
        while True:
            clean = self.text()
            at = clean.find(text, self.seen)
            if at >= 0:
                self.seen = at + len(text)
                return True
            if not self._read(deadline):
                return False

    def send(self, data):
        os.write(self.fd, data.encode() if isinstance(data, str) else data)

    def wait(self, timeout=TIMEOUT):
        """Reads until the program exits; its exit status."""
        deadline = time.monotonic() + timeout
        while self._read(deadline):
            pass
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid != 0:
                self.status = os.waitstatus_to_exitcode(status)
                os.close(self.fd)
                return self.status if self.status >= 0 else None
            time.sleep(0.05)
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        os.close(self.fd)
        self.status = -signal.SIGKILL
        return None


def call(call_id, cmd):
    return [
        {
            "type": "function_call",
            "id": "fc_" + call_id,
            "call_id": call_id,
            "name": "exec_command",
            "arguments": json.dumps({"cmd": cmd}),
        }
    ]


def answer(text):
    return [
        {
            "type": "message",
            "id": "msg_" + str(abs(hash(text))),
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }
    ]


turns = [
    call("c1", "echo hello > note.txt && echo written"),
    answer("I wrote note.txt."),
    call("c2", "sleep 60"),
    answer("never shown: this turn is cancelled before"),
    call("c3", "cat note.txt"),
    answer("It says hello."),
    call("c4", "cat note.txt; echo resumed"),
    answer("Still there after the resume."),
]
# The cancelled turn used one response, its answer is the next turn's
# first: the script skips it.
turns.remove(turns[3])
with open(os.path.join(tmp, "turns.json"), "w") as f:
    json.dump(turns, f)
agent = os.path.join(tmp, "agent.json")
with open(agent, "w") as f:
    json.dump(
        {
            "name": "Tester",
            "instructions": "Test agent.",
            "model": "scripted:turns.json",
            "capabilities": [
                "filesystem",
                {"type": "shell", "needs_approval": True},
            ],
        },
        f,
    )
state = os.path.join(tmp, "chat.json")


def no_sandbox_left():
    return os.listdir(os.path.join(tmp, "tmpdir")) == []


# ---- a chat: approvals, Ctrl-C in a turn and at the prompt, Ctrl-D ------

chat = Chat(agent, "--state", state)
report(chat.expect("Chatting with Tester") and chat.expect("> "),
       "the chat starts with a prompt", chat)

chat.send("write a note\r")
ok = (
    chat.expect('• exec_command {"cmd": "echo hello > note.txt && echo written"}')
    and chat.expect("Allow it? [y]es, [n]o, [a]lways: ")
)
chat.send("y\r")
ok = ok and chat.expect("└ written") and chat.expect("I wrote note.txt.")
report(ok and chat.expect("> "),
       "an approval is asked inline, the tool runs, the answer streams", chat)

chat.send("wait a while\r")
ok = chat.expect("Allow it? [y]es, [n]o, [a]lways: ")
chat.send("always\r")
# The command runs (sleep 60): Ctrl-C cancels the turn, not the chat.
time.sleep(1.0)
started = time.monotonic()
chat.send("\x03")
ok = ok and chat.expect("the turn was cancelled") and chat.expect("> ")
report(ok and time.monotonic() - started < 20,
       "Ctrl-C cancels the turn under way and the chat goes on", chat)

chat.send("this line is dropped")
time.sleep(0.3)
chat.send("\x03")
ok = chat.expect("^C") and chat.expect("> ")
chat.send("read the note\r")
# exec_command was approved "always": no question this time.
ok = ok and chat.expect('• exec_command {"cmd": "cat note.txt"}')
ok = ok and chat.expect("└ hello") and chat.expect("It says hello.")
report(ok and "dropped" not in chat.text()[chat.seen:]
       and chat.text().count("Allow it?") == 2,
       "Ctrl-C at the prompt drops the line; \"always\" approvals hold", chat)

chat.expect("> ")
chat.send("\x04")
ok = chat.expect("The chat is saved in " + state)
status = chat.wait()
mode = stat.S_IMODE(os.stat(state).st_mode) if os.path.exists(state) else None
report(ok and status == 0 and mode == 0o600 and no_sandbox_left(),
       "Ctrl-D ends the chat: exit 0, the state saved (0600), no sandbox left",
       chat)

with open(state) as f:
    saved = json.load(f)
roles = [item.get("role") for item in saved["history"] if "role" in item]
report(saved["type"] == "agents_chat" and saved["model_turns"] == 5
       and saved["always_approved"] == ["exec_command"]
       and roles.count("user") == 2
       and saved["sandbox"]["backend_id"] == "unix_local",
       "the state holds the conversation, the approvals and the sandbox")

# ---- the saved chat resumed in a new process ---------------------------

chat = Chat(agent, "--resume", state)
chat.expect("> ")
chat.send("is it still there?\r")
ok = chat.expect('• exec_command {"cmd": "cat note.txt; echo resumed"}')
ok = ok and chat.expect("└ hello (+1 line)")
ok = ok and chat.expect("Still there after the resume.") and chat.expect("> ")
report(ok and "Allow it?" not in chat.text(),
       "--resume: the workspace, the script and the approvals carry on", chat)
chat.send("/exit\r")
ok = chat.expect("The chat is saved in " + state)
report(ok and chat.wait() == 0 and no_sandbox_left(),
       "/exit ends the resumed chat and saves it again", chat)

# ---- a usage error ----------------------------------------------------

result = subprocess.run([AGENTS, "chat"], env=env, capture_output=True, text=True)
report(result.returncode == 2 and "Usage: agents chat AGENT.json" in result.stderr,
       "agents chat without an agent file is a usage error (2)")

# ---- hostile chat states --------------------------------------------------


def chat_once(*args):
    return subprocess.run([AGENTS, "chat", *args], env=env, capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=TIMEOUT)


with open(state) as f:
    saved = json.load(f)
elsewhere = os.path.join(tmp, "elsewhere")
os.makedirs(elsewhere)
with open(os.path.join(elsewhere, "keep"), "w") as f:
    f.write("not the chat's\n")
for session in [saved["sandbox"]["session_state"],
                *[s["session_state"] for s in saved["sandbox"]["sessions_by_agent"].values()]]:
    session["snapshot"]["base_path"] = elsewhere
hostile = os.path.join(tmp, "hostile.json")
with open(hostile, "w") as f:
    json.dump(saved, f)
result = chat_once(agent, "--resume", hostile)
report(result.returncode == 1
       and "is not this program's snapshot directory" in result.stderr
       and os.listdir(elsewhere) == ["keep"] and no_sandbox_left(),
       "a saved chat naming another snapshot directory is refused, untouched")

for name, text in [("not-an-object", "[]"), ("run-state", '{"type": "run"}'),
                   ("no-history", '{"type": "agents_chat", "version": 1}')]:
    path = os.path.join(tmp, name + ".json")
    with open(path, "w") as f:
        f.write(text)
    result = chat_once(agent, "--resume", path)
    report(result.returncode == 1 and "chat state " + path in result.stderr,
           "a malformed chat state (%s) is refused with its name" % name)

# ---- the demo agent through the real providers -------------------------

demo = os.path.join(SOURCE, "examples", "demo", "agent.json")
server = None


def start_server(exchanges):
    global server
    server = subprocess.Popen(
        [SERVER, DATA, exchanges],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    return server.stdout.readline().decode().strip()


def stop_server():
    """True when every exchange was asked for as expected."""
    server.stdin.close()
    ok = server.wait(timeout=TIMEOUT) == 0
    if not ok:
        for line in server.stderr.read().decode().splitlines():
            print("# server: " + line)
    return ok


# Chat Completions, the URL given with --base-url.
url = start_server(os.path.join(DATA, "demo-chat.json"))
chat = Chat(demo, "--model", "chat:llama-demo", "--base-url", url,
            "--state", os.path.join(tmp, "demo-chat.json"),
            extra_env={"OPENAI_API_KEY": KEY})
chat.expect("> ")
chat.send("Sort 42 7 19 3 88\r")
ok = chat.expect("• apply_patch") and chat.expect("• exec_command")
ok = ok and chat.expect("Sorted in the sandbox: 3, 7, 19, 42, 88")
ok = ok and chat.expect("> ")
chat.send("\x04")
ok = ok and chat.wait() == 0
report(stop_server() and ok and KEY not in chat.text() and no_sandbox_left(),
       "a chat with the demo agent through chat: (streamed from the server)",
       chat)

# The Responses API, the URL from the environment; the first request is
# refused: the turn fails, the chat goes on and the next turn works.
with open(os.path.join(DATA, "demo-unauthorized.json")) as f:
    exchanges = json.load(f)
with open(os.path.join(DATA, "demo-responses.json")) as f:
    exchanges += json.load(f)
with open(os.path.join(tmp, "exchanges.json"), "w") as f:
    json.dump(exchanges, f)
url = start_server(os.path.join(tmp, "exchanges.json"))
chat = Chat(demo, "--model", "openai:gpt-demo",
            "--state", os.path.join(tmp, "demo-responses.json"),
            extra_env={"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": url})
chat.expect("> ")
chat.send("Sort 42 7 19 3 88\r")
ok = chat.expect("the turn failed") and chat.expect("HTTP 401")
ok = ok and chat.expect("> ")
chat.send("Sort 42 7 19 3 88\r")
ok = ok and chat.expect("• apply_patch") and chat.expect("• exec_command")
ok = ok and chat.expect("Sorted in the sandbox: 3, 7, 19, 42, 88")
ok = ok and chat.expect("> ")
chat.send("\x04")
ok = ok and chat.wait() == 0
report(stop_server() and ok and KEY not in chat.text() and no_sandbox_left(),
       "through openai: a refused request fails the turn, not the chat",
       chat)

# ---- --json: events on standard output, messages on standard input -----


def chat_json(*args, input_text="", extra_env=None):
    """Runs `agents chat --json` with @input_text on its standard input;
    (exit status, the events, the lines that are not JSON objects)."""
    result = subprocess.run([AGENTS, "chat", "--json", *args],
                            env={**env, **(extra_env or {})}, input=input_text,
                            capture_output=True, text=True, timeout=TIMEOUT * 2)
    events, junk = [], []
    for line in result.stdout.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            event = None
        if isinstance(event, dict) and "type" in event:
            events.append(event)
        else:
            junk.append(line)
    if junk or result.returncode not in (0, 1, 2):
        for line in (result.stdout + result.stderr).splitlines():
            print("# " + line)
    return result.returncode, events, junk


def of_type(events, kind):
    return [e for e in events if e["type"] == kind]


with open(os.path.join(tmp, "turns-json.json"), "w") as f:
    json.dump([call("j1", "echo hi > j.txt && echo written"), answer("Wrote j.txt.")], f)
agent_json = os.path.join(tmp, "agent-json.json")
with open(agent_json, "w") as f:
    json.dump({"name": "Tester", "instructions": "Test agent.",
               "model": "scripted:turns-json.json",
               "capabilities": ["filesystem", {"type": "shell", "needs_approval": True}]}, f)
json_state = os.path.join(tmp, "chat-json.json")
status, events, junk = chat_json(agent_json, "--state", json_state,
                                 input_text="write it\nmaybe\ny\n")
types = [e["type"] for e in events]
requests = of_type(events, "approval_requested")
decided = of_type(events, "approval_decided")
outputs = [e for e in of_type(events, "run_item") if e["name"] == "tool_output"]
final = of_type(events, "final_output")
report(status == 0 and not junk and types[0] == "chat_started"
       and events[0]["agent"] == "Tester" and events[0]["state_file"] == json_state
       and events[0]["resumed"] is False and types[-1] == "chat_saved"
       and events[-1]["state_file"] == json_state,
       "chat --json: only JSON events, from chat_started to chat_saved")
# "maybe" is no answer: the question is asked again.
report(len(requests) == 2 and requests[0]["tool"] == "exec_command"
       and requests[0]["call_id"] == "j1" and "echo hi" in requests[0]["arguments"]
       and [(d["call_id"], d["decision"]) for d in decided] == [("j1", "yes")]
       and types.index("approval_requested") < types.index("approval_decided"),
       "chat --json: an approval is an event, answered by the next input line")
report(len(outputs) == 1 and outputs[0]["tool"] == "exec_command"
       and "written" in json.dumps(outputs[0]["output"])
       and [(e["agent"], e["output"]) for e in final] == [("Tester", "Wrote j.txt.")]
       and os.path.exists(json_state) and no_sandbox_left(),
       "chat --json: the tool's output and the turn's final output are events")

status, events, junk = chat_json()
report(status == 2 and not junk and len(events) == 1 and events[0]["type"] == "error"
       and events[0]["domain"] == "g-option-context-error-quark"
       and "Usage: agents chat AGENT.json" in events[0]["message"],
       "chat --json without an agent file: a usage error event, exit 2")
status, events, junk = chat_json(agent_json, "--no-such-option")
report(status == 2 and not junk and [e["type"] for e in events] == ["error"]
       and "--no-such-option" in events[0]["message"],
       "chat --json with an unknown option: a usage error event, exit 2")
status, events, junk = chat_json(os.path.join(tmp, "missing.json"))
report(status == 1 and not junk and [e["type"] for e in events] == ["error"]
       and "missing.json" in events[0]["message"] and no_sandbox_left(),
       "chat --json with a missing agent file: an error event, exit 1")

# A refused request is an error event with the server's status; the chat
# goes on and the next turn works.
url = start_server(os.path.join(tmp, "exchanges.json"))
status, events, junk = chat_json(
    demo, "--model", "openai:gpt-demo", "--state", os.path.join(tmp, "demo-json.json"),
    input_text="Sort 42 7 19 3 88\nSort 42 7 19 3 88\n",
    extra_env={"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": url})
errors = of_type(events, "error")
final = of_type(events, "final_output")
report(stop_server() and status == 0 and not junk and len(errors) == 1
       and errors[0]["domain"] == "agents-run-error-quark"
       and errors[0]["context"].get("status") == 401
       and len(final) == 1 and "3, 7, 19, 42, 88" in json.dumps(final[0]["output"])
       and of_type(events, "text_delta")
       and "".join(e["delta"] for e in of_type(events, "text_delta")).find("Sorted") >= 0
       and KEY not in json.dumps(events) and no_sandbox_left(),
       "chat --json through openai: the refused turn is an error event, the next streams")

stop_all()
if server is not None and server.poll() is None:
    server.kill()
    server.wait()
print("1..%d" % count)
shutil.rmtree(tmp, ignore_errors=True)
sys.exit(1 if failed else 0)
