#!/usr/bin/env python3.11
"""The compose stack, run for real: built, scaled, played through the proxy, faults, torn down.

    .venv/bin/python scripts/compose_smoke.py [--web 3] [--worker 2] [--keep]

What it does, failing at the first thing that is not so (CI runs it: .ci/run):

1. a Docker engine: starts ``dockerd`` when none answers (installs Debian's docker.io and
   docker-compose when missing); the base images: the real ones when present, else
   TEST-ONLY stand-ins built from Debian (scripts/standin_images.py: Docker Hub cannot be
   reached here);
2. ``docker-compose build``, then ``up -d --scale web=N --scale worker=M`` under a project
   name of its own, the proxy on free loopback ports only;
3. through the proxy: every web replica answers (``/health/`` names its replica); a player
   signs up and takes a token; today's daily appears on its own (beat sends the
   preparation as it starts, the workers prove it: no waiting for the next beat);
4. WebSocket watchers spread over the replicas (each replica's own metrics count its
   sockets) each see the game's finish; the game is played to a win over HTTP;
5. a second player's game, played over the play socket (ws/attempts/<id>/play/, as the web
   client plays): one web replica and one worker are killed mid-game; the socket is opened
   again through the proxy, the game goes on through the others, and no acknowledged
   action is lost (the attempt ends won, with exactly the actions acknowledged);
6. ``docker-compose down -v`` (unless ``--keep``).

The winning line comes from the stack's own database (``manage.py shell`` in a web
container): the harness is the operator here, and no client of the API can learn it.
"""

from __future__ import annotations

import argparse
import contextlib
import http.cookiejar
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, cast

from websockets.sync.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parent.parent
STEP_TIMEOUT = 300.0  # seconds for any one wait (the build is not a wait)
BATCH = 10  # actions per post


def say(message: str) -> None:
    print(f"[compose-smoke {time.strftime('%H:%M:%S')}] {message}", flush=True)


def sh(*command: str, check: bool = True, capture: bool = False, **kw: Any) -> str:
    if not capture:
        say("$ " + " ".join(command))
    done = subprocess.run(command, check=False, text=True, capture_output=capture, cwd=ROOT, **kw)
    if check and done.returncode != 0:
        detail = (done.stderr or "")[-3000:] if capture else ""
        raise SystemExit(f"failed ({done.returncode}): {' '.join(command)}\n{detail}")
    return done.stdout if capture else ""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# --- the engine and the images ------------------------------------------------------


def docker_answers() -> bool:
    return subprocess.run(["docker", "info"], capture_output=True).returncode == 0


def ensure_engine() -> None:
    missing = [tool for tool in ("dockerd", "docker-compose") if shutil.which(tool) is None]
    if missing:
        packages = {"dockerd": "docker.io", "docker-compose": "docker-compose"}
        sh("apt-get", "update", "-q")
        sh("apt-get", "install", "-y", "-q", *(packages[tool] for tool in missing))
    if docker_answers():
        return
    say("no Docker engine answers: starting dockerd (log: /tmp/astrocyte-dockerd.log)")
    with open("/tmp/astrocyte-dockerd.log", "ab") as log:
        subprocess.Popen(["dockerd"], stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + 60
    while not docker_answers():
        if time.monotonic() > deadline:
            raise SystemExit("dockerd did not answer within 60 s (/tmp/astrocyte-dockerd.log)")
        time.sleep(0.5)


# --- the stack ---------------------------------------------------------------------


class Stack:
    def __init__(self, web: int, worker: int) -> None:
        self.project = "astrocyte-smoke"  # one name: the next run reuses its build cache
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.web, self.worker = web, worker
        self.env = {
            **os.environ,
            "SECRET_KEY": secrets.token_urlsafe(50),
            "HTTP_PORT": f"127.0.0.1:{self.port}",
            "HTTPS_PORT": f"127.0.0.1:{free_port()}",
            "METRICS_ENABLED": "true",
            "ALLOWED_HOSTS": "localhost,127.0.0.1",
        }

    def compose(self, *args: str, capture: bool = False, check: bool = True) -> str:
        return sh(
            "docker-compose", "-p", self.project, *args, env=self.env, capture=capture, check=check
        )

    def containers(self, service: str) -> list[str]:
        out = self.compose("ps", "-q", service, capture=True)
        return [line for line in out.split() if line]

    def up(self) -> None:
        self.compose("build")
        self.compose("up", "-d", "--scale", f"web={self.web}", "--scale", f"worker={self.worker}")

    def down(self) -> None:
        self.compose("down", "-v", "--remove-orphans", check=False)

    def logs(self) -> str:
        return self.compose("logs", "--no-color", "--tail", "60", capture=True, check=False)

    def in_container(self, container: str, code: str) -> str:
        return sh("docker", "exec", container, "python", "-c", code, capture=True)

    def manage_shell(self, code: str) -> str:
        web = self.containers("web")[0]
        return sh("docker", "exec", web, "python", "manage.py", "shell", "-c", code, capture=True)

    def gauge(self, container: str, name: str) -> float:
        """A gauge of this replica's own /metrics/ (0 when absent)."""
        text = self.in_container(
            container,
            "import urllib.request;print(urllib.request.urlopen("
            "'http://127.0.0.1:8000/metrics/', timeout=10).read().decode())",
        )
        found = re.search(rf"^{name}(?:\{{[^}}]*\}})? ([0-9.e+]+)$", text, re.M)
        return float(found[1]) if found else 0.0

    def websockets_open(self, container: str) -> float:
        return self.gauge(container, "astrocyte_websockets_open")


# --- HTTP through the proxy ----------------------------------------------------------


class Client:
    """One player's HTTP client: cookies for the sign-up, then the token."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))
        self.token: str | None = None
        self.username = ""

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        url = f"{self.base}{path}"
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(url, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if self.token:
            request.add_header("Authorization", f"Token {self.token}")
        elif method != "GET":
            csrf = next((c.value for c in self.cookies if c.name == "csrftoken"), "")
            request.add_header("X-CSRFToken", csrf or "")
            request.add_header("Referer", url)
        try:
            with self.opener.open(request, timeout=30) as answer:
                raw, status = answer.read(), answer.status
        except urllib.error.HTTPError as error:
            raw, status = error.read(), error.code
        try:
            return status, json.loads(raw) if raw else None
        except ValueError:
            return status, raw[:200]

    def sign_up(self, name: str) -> None:
        password = secrets.token_urlsafe(16)
        self.call("GET", "/api/v1/auth/me/")  # the CSRF cookie, as a browser gets it
        status, body = self.call(
            "POST", "/api/v1/auth/signup/", {"username": name, "password": password}
        )
        expect(status == 201, f"sign-up answered {status}: {body}")
        status, body = self.call(
            "POST", "/api/v1/auth/token/", {"username": name, "password": password}
        )
        expect(status == 200, f"token answered {status}: {body}")
        self.token = body["token"]
        self.username = name


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


def wait(what: str, probe: Any, timeout: float = STEP_TIMEOUT) -> Any:
    say(f"waiting: {what}")
    began = time.monotonic()
    last = ""
    while time.monotonic() - began < timeout:
        try:
            found = probe()
        except (OSError, ValueError, KeyError, TypeError) as error:
            found, last = None, repr(error)
        if found:
            say(f"  {what}: after {time.monotonic() - began:.1f} s")
            return found
        time.sleep(0.5)
    raise AssertionError(f"not within {timeout:.0f} s: {what} ({last})")


# --- the checks ----------------------------------------------------------------------


def every_replica_answers(stack: Stack, player: Client) -> set[str]:
    def replicas_seen() -> set[str] | None:
        seen = set()
        for _ in range(12 * stack.web):
            status, body = player.call("GET", "/health/")
            if status == 200 and body.get("status") == "ok":
                seen.add(body["replica"])
        return seen if len(seen) == stack.web else None

    replicas: set[str] = wait(f"all {stack.web} web replicas answer /health/", replicas_seen)
    return replicas


def todays_daily(player: Client) -> dict[str, Any]:
    def listed() -> dict[str, Any] | None:
        status, body = player.call("GET", "/api/v1/challenges/today/")
        if status != 200:
            return None
        if body["preparing"]:
            say(f"  preparing: {body['preparing']}")
        return body["challenges"][0] if body["challenges"] else None

    daily: dict[str, Any] = wait("today's daily, proven by the stack on its own", listed)
    expect(daily["revealed"] is None, "an open day's deal is revealed")
    return daily


def solution_of(stack: Stack, challenge_id: int) -> list[str]:
    code = (
        "import json; from games.models import DailyChallenge; "
        f"print(json.dumps(DailyChallenge.objects.get(pk={challenge_id}).deal.solution))"
    )
    return list(json.loads(stack.manage_shell(code).strip().splitlines()[-1]))


class SocketPlay:
    """A player's batches over its play socket (ws/attempts/<id>/play/, through the proxy,
    signed in with its token), as the web client sends them: a dropped socket is opened
    again (maybe on another replica) and the unanswered batch sent again."""

    def __init__(self, port: int, token: str, attempt_id: int) -> None:
        self.url = f"ws://127.0.0.1:{port}/ws/attempts/{attempt_id}/play/"
        self.token = token
        self.socket: ClientConnection | None = None
        self.sent = 0
        self.opened = 0

    def _open(self) -> ClientConnection:
        if self.socket is None:
            socket = connect(
                self.url,
                additional_headers={"Authorization": f"Token {self.token}"},
                open_timeout=10,
            )
            ready = json.loads(socket.recv(timeout=10))
            expect(ready.get("type") == "ready", f"the play socket said {ready}")
            self.socket, self.opened = socket, self.opened + 1
        return self.socket

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """As ``Client.call`` for an actions post; a lost socket raises OSError."""
        self.sent += 1
        try:
            socket = self._open()
            socket.send(json.dumps({"type": "actions", "id": self.sent, **body}))
            answer = json.loads(socket.recv(timeout=15))
        except Exception as error:  # a dying replica: closed, reset, timed out
            self.close()
            raise OSError(repr(error)) from error
        return int(answer["status"]), answer["body"]

    def close(self) -> None:
        if self.socket is not None:
            with contextlib.suppress(Exception):
                self.socket.close()
        self.socket = None


def play(player: Any, attempt_id: int, line: list[str], *, during: Any = None) -> int:
    """Post ``line`` in batches (``player``: a Client over HTTP, or a SocketPlay); retry
    through refusals of a dying replica (5xx, lost connections); a stale offset's 409 says
    where the server is. Returns the actions acknowledged."""
    offset = 0
    faulted = False
    retries = 0
    while offset < len(line):
        if during is not None and not faulted and offset >= len(line) // 2:
            during()
            faulted = True
        batch = line[offset : offset + BATCH]
        try:
            status, body = player.call(
                "POST",
                f"/api/v1/attempts/{attempt_id}/actions/",
                {"offset": offset, "actions": batch},
            )
        except OSError as error:
            status, body = 0, repr(error)
        if status == 200:
            expect(body["offset"] == offset + len(batch), f"acknowledged {body['offset']}")
            offset = body["offset"]
            continue
        if (
            status == 409
            and isinstance(body, dict)
            and "offset" in body.get("error", {}).get("details", {})
        ):
            offset = int(body["error"]["details"]["offset"])
            continue
        retries += 1
        expect(retries < 60, f"the stack kept refusing actions: {status} {body}")
        time.sleep(0.5)
    if retries:
        say(f"  {retries} post(s) retried while replicas were down")
    return offset


def finish_seen(watcher: ClientConnection, username: str, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            message = json.loads(watcher.recv(timeout=max(0.1, deadline - time.monotonic())))
        except TimeoutError:
            return False
        for row in message.get("top") or []:
            if row.get("username") == username and row.get("won"):
                return True
    return False


def run_smoke(stack: Stack) -> None:
    began = time.monotonic()
    stack.up()
    say(f"built and up in {time.monotonic() - began:.0f} s; proxy at {stack.base}")
    first = Client(stack.base)
    replicas = every_replica_answers(stack, first)
    say(f"replicas: {sorted(replicas)}")
    for service in ("web", "worker", "beat"):
        uid = sh("docker", "exec", stack.containers(service)[0], "id", "-u", capture=True).strip()
        expect(uid == "10001", f"{service} runs as uid {uid}, not the image's unprivileged 10001")
    say("web, worker and beat run as the unprivileged uid 10001")
    first.sign_up(f"smoke{secrets.randbelow(10**6)}")
    daily = todays_daily(first)
    challenge = daily["id"]
    line = solution_of(stack, challenge)
    say(f"daily {challenge} ({daily['variant']}, par {daily['par']}), {len(line)} actions")

    origin = f"http://127.0.0.1:{stack.port}"
    ws_url = f"ws://127.0.0.1:{stack.port}/ws/challenges/{challenge}/"
    watchers = [
        connect(ws_url, origin=cast(Any, origin), open_timeout=20) for _ in range(2 * stack.web)
    ]
    try:
        for watcher in watchers:
            expect(json.loads(watcher.recv(timeout=20))["type"] == "snapshot", "no snapshot")
        webs = stack.containers("web")
        counts = wait(
            "the watchers spread over every replica",
            lambda: (
                (c := [stack.websockets_open(w) for w in webs]) and all(n >= 1 for n in c) and c
            ),
            timeout=30,
        )
        say(f"  sockets per replica: {counts}")
        status, attempt = first.call("POST", f"/api/v1/challenges/{challenge}/start/")
        expect(status == 201, f"start answered {status}: {attempt}")
        expect(play(first, attempt["id"], line) == len(line), "not every action acknowledged")
        status, detail = first.call("GET", f"/api/v1/attempts/{attempt['id']}/")
        expect(detail["won"] and detail["over"], f"the game did not end won: {detail}")
        for n, watcher in enumerate(watchers):
            expect(finish_seen(watcher, first.username, 20), f"watcher {n} never saw the finish")
        say(f"won with score {detail['score']}; all {len(watchers)} watchers saw it")
    finally:
        for watcher in watchers:
            watcher.close()

    second = Client(stack.base)
    second.sign_up(f"smoke{secrets.randbelow(10**6)}")
    status, attempt = second.call("POST", f"/api/v1/challenges/{challenge}/start/")
    expect(status == 201, f"second start answered {status}: {attempt}")

    def kill_a_web_and_a_worker() -> None:
        # the replica that holds the play socket (its own metrics say so), and a worker
        webs = stack.containers("web")
        web = next((w for w in webs if stack.gauge(w, "astrocyte_play_sockets_open") >= 1), webs[0])
        worker = stack.containers("worker")[0]
        say(f"killing web replica {web[:12]} and worker {worker[:12]} mid-game")
        sh("docker", "kill", web)
        sh("docker", "kill", worker)

    # The second player plays over the play socket, as the web client does.
    assert second.token is not None
    over_socket = SocketPlay(stack.port, second.token, attempt["id"])
    try:
        acknowledged = play(over_socket, attempt["id"], line, during=kill_a_web_and_a_worker)
    finally:
        over_socket.close()
    expect(
        over_socket.opened >= 2,
        f"the play socket was opened {over_socket.opened} time(s): its replica was not killed",
    )
    say(f"  the play socket was opened again on another replica ({over_socket.opened} opens)")
    status, detail = second.call("GET", f"/api/v1/attempts/{attempt['id']}/")
    expect(status == 200 and detail["won"], f"the second game did not end won: {detail}")
    expect(
        detail["action_count"] == acknowledged == len(line),
        f"acknowledged {acknowledged}, stored {detail['action_count']} of {len(line)}",
    )
    status, _ = second.call("GET", "/health/")
    expect(status == 200, "the stack is unhealthy after the kills")
    say(
        f"the second game, over the play socket, survived the kills: {acknowledged} actions "
        "acknowledged and stored"
    )
    say(f"smoke passed in {time.monotonic() - began:.0f} s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--web", type=int, default=3)
    parser.add_argument("--worker", type=int, default=2)
    parser.add_argument("--keep", action="store_true", help="leave the stack up afterwards")
    args = parser.parse_args(argv)
    ensure_engine()
    sh(sys.executable, "scripts/standin_images.py")
    stack = Stack(args.web, args.worker)
    try:
        run_smoke(stack)
    except BaseException:
        say("FAILED; the stack's last log lines:")
        print(stack.logs(), flush=True)
        raise
    finally:
        if not args.keep:
            stack.down()
    for line in sh(
        "docker", "image", "ls", "--format", "{{.Repository}}:{{.Tag}} {{.Size}}", capture=True
    ).splitlines():
        if line.startswith((f"{stack.project}_", "python:", "postgres:", "redis:", "caddy:")):
            say(f"image {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
