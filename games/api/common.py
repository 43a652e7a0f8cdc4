"""What every games API view shares: who may call it and how often."""

from __future__ import annotations

from rest_framework.permissions import IsAuthenticated

from core.api_errors import error_response
from core.throttles import WindowRateThrottle

SIGNED_IN = [IsAuthenticated]
SCOPED = [WindowRateThrottle]

UNAUTHENTICATED = error_response("Not signed in (session or token).")
THROTTLED = error_response("Too many requests: details.wait says how many seconds to wait.")
NOT_FOUND = error_response("No such object, or not yours.")
BAD_INPUT = error_response("The request body is not valid; details name the field.")
