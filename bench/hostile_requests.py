"""Hostile requests against a running server: status, content type, error code, seconds.

The table in docs/reliability.md. Start the production server (``python3.11 scripts/dev.py
run --prod --workers 1 --port P`` with PostgreSQL and Redis), make a player, a token and a
started attempt, then:

    .venv/bin/python -m bench.hostile_requests P TOKEN ATTEMPT_ID CHALLENGE_ID
"""

from __future__ import annotations

import http.client
import json
import sys
import time


def ask(port: int, method: str, path: str, body: bytes | None, headers: dict[str, str]) -> str:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    all_headers = {"Host": "127.0.0.1", **headers}
    if body is not None:
        all_headers.setdefault("Content-Type", "application/json")
    started = time.perf_counter()
    connection.request(method, path, body=body, headers=all_headers)
    response = connection.getresponse()
    data = response.read()
    seconds = time.perf_counter() - started
    content_type = (response.getheader("Content-Type") or "").split(";")[0]
    try:
        code = json.loads(data)["error"]["code"]
    except (ValueError, KeyError, TypeError):
        code = repr(data[:40])
    return f"{response.status} | {content_type} | {code} | {seconds:.3f}"


def main(argv: list[str]) -> int:
    port, token, attempt, challenge = int(argv[0]), argv[1], argv[2], argv[3]
    auth = {"Authorization": f"Token {token}"}
    actions = f"/api/v1/attempts/{attempt}/actions/"
    board = f"/api/v1/leaderboards/challenges/{challenge}/"
    deep = "[" * 5000 + "]" * 5000
    undo = '{"offset": 0, "actions": [' + ",".join(['"undo"'] * 273_000) + "]}"
    cases: list[tuple[str, str, str, str | None, dict[str, str]]] = [
        ("board offset 2^63", "GET", board + "?offset=9223372036854775808", None, {}),
        ("board offset 10^20", "GET", board + "?offset=100000000000000000000", None, {}),
        ("player %00", "GET", "/api/v1/leaderboards/players/%00/", None, {}),
        ("JSON 5,000 deep to auth/token/", "POST", "/api/v1/auth/token/", deep, {}),
        ("JSON 5,000 deep to actions", "POST", actions, f'{{"offset":0,"actions":{deep}}}', auth),
        ("2.19 MB actions post (273,000 undo)", "POST", actions, undo, auth),
        ("3 MiB body to auth/token/", "POST", "/api/v1/auth/token/", "x" * (3 << 20), {}),
        ("10 MiB body to auth/token/", "POST", "/api/v1/auth/token/", "x" * (10 << 20), {}),
        ("201 actions", "POST", actions, json.dumps({"offset": 0, "actions": [1] * 201}), auth),
        (
            "1,200 query parameters",
            "GET",
            "/api/v1/leaderboards/alltime/?" + "&a=1" * 1200,
            None,
            {},
        ),
    ]
    print("| request | status | content type | code | seconds |")
    print("|---|---|---|---|---|")
    for name, method, path, body, headers in cases:
        encoded = body.encode() if body is not None else None
        print(f"| {name} | {ask(port, method, path, encoded, headers)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
