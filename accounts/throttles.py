"""Rate limits for the doors in: counted per client address even for a signed-in session."""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView


class AddressRateThrottle(ScopedRateThrottle):
    """ScopedRateThrottle keyed by address only: signing in must not reset the count."""

    def get_cache_key(self, request: Request, view: APIView) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}
