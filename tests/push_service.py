"""A local push service for the tests and bench/push_bench.py, following RFC 8030 as far as
an application server sees it: ``POST /push/<token>`` with a TTL header, an RFC 8291
``aes128gcm`` body and an RFC 8292 VAPID ``Authorization`` header; 201 Created with a
Location when taken. Browsers' real push services (Google's FCM, Mozilla's autopush, Apple's)
cannot be reached from here, so this one stands in for them, and checks more than they tell:
it DECRYPTS every message with the subscription's private key and auth secret (as the
browser would) and verifies the VAPID token's ES256 signature, audience, expiry and subject.

Subscriptions are made here (``subscribe``): a P-256 key pair and an auth secret, as a
browser makes them. A token can be told to answer 410 Gone, 404, or 500 (a failing push
service) instead."""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Browser:
    """One subscription's secrets, as the browser keeps them."""

    token: str
    private_key: ec.EllipticCurvePrivateKey
    auth: bytes

    @property
    def p256dh(self) -> str:
        point = self.private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return b64url(point)


@dataclass
class Received:
    token: str
    message: dict[str, Any]
    ttl: int
    vapid_claims: dict[str, Any]
    vapid_key: str


@dataclass
class PushService:
    url: str = ""
    browsers: dict[str, Browser] = field(default_factory=dict)
    answers: dict[str, int] = field(default_factory=dict)  # token -> status to answer
    received: list[Received] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # what a check refused, and why
    lock: threading.Lock = field(default_factory=threading.Lock)
    arrived: threading.Condition = field(init=False)
    # Decrypt one message in this many (1: every one; the bench samples to spare its CPU).
    decrypt_every: int = 1
    taken: int = 0  # messages answered 201
    _verified: set[str] = field(default_factory=set)  # VAPID tokens already checked

    def __post_init__(self) -> None:
        self.arrived = threading.Condition(self.lock)

    def subscribe(self, answer: int | None = None, like: str | None = None) -> dict[str, Any]:
        """A new browser subscription: what PushSubscription.toJSON() gives the page (with
        ``like``, the keys of that token's browser: the bench's 100,000 need no 100,000
        key pairs)."""
        token = os.urandom(12).hex()
        if like is None:
            browser = Browser(token, ec.generate_private_key(ec.SECP256R1()), os.urandom(16))
        else:
            browser = Browser(token, self.browsers[like].private_key, self.browsers[like].auth)
        self.browsers[browser.token] = browser
        if answer is not None:
            self.answers[browser.token] = answer
        return {
            "endpoint": f"{self.url}/push/{browser.token}",
            "keys": {"p256dh": browser.p256dh, "auth": b64url(browser.auth)},
        }

    def messages_for(self, endpoint: str) -> list[dict[str, Any]]:
        token = endpoint.rsplit("/", 1)[-1]
        with self.lock:
            return [got.message for got in self.received if got.token == token]

    def wait_for(self, count: int, timeout: float = 30.0) -> None:
        """Until ``count`` messages were taken (a bound, never a sleep)."""
        with self.arrived:
            if not self.arrived.wait_for(lambda: len(self.received) >= count, timeout):
                raise TimeoutError(f"{len(self.received)} of {count} messages arrived")

    # --- the checks a push service makes, and the decryption a browser makes ----------

    def check_vapid(self, header: str) -> tuple[dict[str, Any], str]:
        """RFC 8292: ``vapid t=<JWT>, k=<public key>``; the JWT signed by k (ES256), for
        this push service's origin, unexpired and at most 24 hours ahead, with a subject."""
        with self.lock:
            known = header in self._verified
        scheme, _, params = header.partition(" ")
        if scheme.lower() != "vapid":
            raise ValueError(f"Authorization scheme {scheme!r}, not vapid")
        parts = dict(part.strip().split("=", 1) for part in params.split(","))
        token, key = parts["t"], parts["k"]
        head, body, signature = token.split(".")
        claims: dict[str, Any] = json.loads(unb64url(body))
        if known:
            self.check_claims(claims)
            return claims, key
        if json.loads(unb64url(head)) != {"typ": "JWT", "alg": "ES256"}:
            raise ValueError(f"JWT header {unb64url(head)!r}")
        public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(key))
        raw = unb64url(signature)
        der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
        try:
            public.verify(der, f"{head}.{body}".encode(), ec.ECDSA(hashes.SHA256()))
        except InvalidSignature as error:
            raise ValueError("VAPID signature does not verify") from error
        self.check_claims(claims)
        with self.lock:
            self._verified.add(header)
        return claims, key

    def check_claims(self, claims: dict[str, Any]) -> None:
        if claims.get("aud") != self.url:
            raise ValueError(f"aud {claims.get('aud')!r} is not {self.url!r}")
        if not time.time() < claims["exp"] <= time.time() + 24 * 3600:
            raise ValueError(f"exp {claims['exp']} is past or more than 24 h ahead")
        if not str(claims.get("sub", "")).startswith(("mailto:", "https:")):
            raise ValueError(f"sub {claims.get('sub')!r}")

    def take(self, token: str, headers: Any, body: bytes) -> tuple[int, str]:
        browser = self.browsers.get(token)
        if browser is None:
            return 404, "no such subscription"
        answer = self.answers.get(token)
        if answer is not None:
            return answer, "told to"
        try:
            if headers.get("TTL") is None:
                raise ValueError("no TTL header (RFC 8030 5.2)")
            if headers.get("Content-Encoding") != "aes128gcm":
                raise ValueError(f"Content-Encoding {headers.get('Content-Encoding')!r}")
            claims, key = self.check_vapid(headers.get("Authorization", ""))
            with self.lock:
                self.taken += 1
                decrypt = self.taken % self.decrypt_every == 0
            message: dict[str, Any] = {}
            if decrypt:
                plain = http_ece.decrypt(
                    body,
                    private_key=browser.private_key,
                    auth_secret=browser.auth,
                    version="aes128gcm",
                )
                message = json.loads(plain)
        except (ValueError, KeyError, TypeError) as error:
            with self.lock:
                self.refused.append(f"{token}: {error}")
            return 400, str(error)
        if decrypt:
            with self.arrived:
                self.received.append(Received(token, message, int(headers["TTL"]), claims, key))
                self.arrived.notify_all()
        return 201, "created"


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"  # keep-alive, as the push services answer

    def do_GET(self) -> None:
        """``/stats``: what was taken, decrypted and refused (for a bench in another process)."""
        service = self.server.service
        with service.lock:
            stats = {
                "taken": service.taken,
                "decrypted": len(service.received),
                "refused": list(service.refused[:10]),
                "messages": [got.message for got in service.received[:3]],
            }
        payload = json.dumps(stats).encode()
        self.send_response(200 if self.path == "/stats" else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        if not self.path.startswith("/push/"):
            status, text = 404, "not a push resource"
        else:
            status, text = self.server.service.take(self.path[len("/push/") :], self.headers, body)
        payload = text.encode()
        self.send_response(status)
        if status == 201:
            self.send_header("Location", f"{self.server.service.url}/message/{os.urandom(6).hex()}")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def __init__(self, service: PushService) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.service = service


def start_push_service() -> tuple[PushService, _Server]:
    """The service, listening on 127.0.0.1 on a free port, served by a daemon thread."""
    service = PushService()
    server = _Server(service)
    service.url = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, daemon=True, name="push-service").start()
    return service, server
