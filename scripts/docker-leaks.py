#!/usr/bin/python3
"""Fails when the tests left libagents containers behind.

Lists the containers labelled org.gnome.agents.managed=true whose owner
process (label org.gnome.agents.owner,
"MACHINE_ID:BOOT_ID:PIDNS:PID:START_TIME") ran on this machine, in this
boot and pid namespace, and is gone (its pid free or reused), removes
them, and exits 1 if there were any. Containers of live
processes (an agent running beside the tests) are left alone. Exits 0
when no engine answers: then no docker test ran.
"""
import http.client
import json
import os
import socket
import sys
import urllib.parse

SOCKET = os.environ.get("DOCKER_SOCKET", "/var/run/docker.sock")


class UnixConnection(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("docker", timeout=30)
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(self.path)


def call(method, path):
    conn = UnixConnection(SOCKET)
    conn.request(method, "/v1.41" + path)
    answer = conn.getresponse()
    body = answer.read()
    conn.close()
    return answer.status, body


def read_first_line(*paths):
    for path in paths:
        try:
            with open(path) as f:
                return f.readline().strip()
        except OSError:
            pass
    return None


def start_time(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            stat = f.read()
    except OSError:
        return None
    return stat[stat.rindex(")") + 2 :].split()[19]


def owner_gone(owner):
    parts = (owner or "").split(":")
    if len(parts) != 5 or not parts[3].isdigit():
        return False
    machine, boot, pidns, pid, start = parts
    ours = (
        read_first_line("/etc/machine-id", "/var/lib/dbus/machine-id"),
        read_first_line("/proc/sys/kernel/random/boot_id"),
        "".join(ch for ch in os.readlink("/proc/self/ns/pid") if ch.isdigit()),
    )
    if (machine, boot, pidns) != ours:
        return False
    now = start_time(int(pid))
    if now is not None:
        return now != start
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def main():
    filters = json.dumps({"label": ["org.gnome.agents.managed=true"]})
    try:
        status, body = call(
            "GET", "/containers/json?all=true&filters=" + urllib.parse.quote(filters)
        )
    except OSError:
        return 0
    if status != 200:
        print(f"docker-leaks: the engine answered {status}", file=sys.stderr)
        return 1
    leaks = [
        c
        for c in json.loads(body)
        if owner_gone((c.get("Labels") or {}).get("org.gnome.agents.owner"))
    ]
    for c in leaks:
        labels = c.get("Labels") or {}
        print(
            "docker-leaks: removing container %s left by %s"
            % (c["Id"][:12], labels.get("org.gnome.agents.owner")),
            file=sys.stderr,
        )
        call("DELETE", "/containers/%s?force=true&v=true" % c["Id"])
    return 1 if leaks else 0


if __name__ == "__main__":
    sys.exit(main())
