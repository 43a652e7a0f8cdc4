"""Pushing one message to one browser (RFC 8030, encrypted as RFC 8291's aes128gcm by
pywebpush, signed with the server's VAPID key). A push service that answers 404 or 410
says the subscription is gone: the caller deletes it. Any other failure (a refusal, a
5xx, a timeout, a refused connection) is only that push's: nothing is raised."""

from __future__ import annotations

import enum
import json
import logging
import threading
import time
from urllib.parse import urlsplit

import requests
from pywebpush import WebPusher

from notifications import vapid
from notifications.kinds import Message
from notifications.models import PushSubscription

log = logging.getLogger(__name__)

TTL_SECONDS = 6 * 3600  # a push service keeps a message this long for a browser that is away
TIMEOUT_SECONDS = 10.0
SIGNATURE_SECONDS = 3600  # one signed token per push service is reused this long


class Outcome(enum.Enum):
    DELIVERED = "delivered"  # the push service took it (201)
    GONE = "gone"  # 404/410: the browser unsubscribed or the subscription expired
    FAILED = "failed"  # anything else: another run may try again


class Pusher:
    """Sends messages for one run: an HTTP session per thread (keep-alive to each push
    service) and one VAPID signature per push service, reused for an hour."""

    def __init__(self) -> None:
        self._local = threading.local()
        self._signatures: dict[str, tuple[float, dict[str, str]]] = {}
        self._lock = threading.Lock()
        self._sessions: list[requests.Session] = []

    def _session(self) -> requests.Session:
        session = getattr(self._local, "session", None)
        if session is None:
            session = self._local.session = requests.Session()
            with self._lock:
                self._sessions.append(session)
        return session

    def _authorization(self, endpoint: str) -> dict[str, str]:
        parts = urlsplit(endpoint)
        audience = f"{parts.scheme}://{parts.netloc}"
        now = time.time()
        with self._lock:
            signed = self._signatures.get(audience)
            if signed is None or now - signed[0] > SIGNATURE_SECONDS:
                signed = self._signatures[audience] = (now, vapid.authorization(audience, now))
        return signed[1]

    def push(self, subscription: PushSubscription, message: Message) -> Outcome:
        data = json.dumps(message.as_json()).encode()
        try:
            answer = WebPusher(
                subscription.subscription_info(), requests_session=self._session()
            ).send(
                data,
                self._authorization(subscription.endpoint),
                ttl=TTL_SECONDS,
                content_encoding="aes128gcm",
                timeout=TIMEOUT_SECONDS,
            )
        except (requests.RequestException, ValueError) as error:
            log.warning("push to subscription %s failed: %s", subscription.pk, error)
            return Outcome.FAILED
        assert isinstance(answer, requests.Response)  # not the curl form
        if answer.status_code in (404, 410):
            return Outcome.GONE
        if 200 <= answer.status_code < 300:
            return Outcome.DELIVERED
        log.warning(
            "push service answered %s for subscription %s", answer.status_code, subscription.pk
        )
        return Outcome.FAILED

    def close(self) -> None:
        with self._lock:
            sessions, self._sessions = self._sessions, []
        for session in sessions:
            session.close()
