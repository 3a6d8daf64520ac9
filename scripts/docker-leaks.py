#!/usr/bin/python3
"""Fails when the tests left libagents containers behind.

Lists the containers labelled org.gnome.agents.managed=true whose owner
process (label org.gnome.agents.owner, "HOST:PID") ran on this host and
is gone, removes them, and exits 1 if there were any. Containers of live
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


def owner_gone(owner):
    host, _, pid = (owner or "").rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return False
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
