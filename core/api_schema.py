"""The OpenAPI schema's one addition by hand: every operation that reads credentials can
answer 401.

DRF authenticates every request whose ``Authorization`` header names a token (and every
session cookie), public operations included, so an unknown or revoked token gets 401 in
the one error shape wherever it is sent. drf-spectacular lists 401 only where a view
says so; this post-processing hook adds it to every operation that accepts credentials.
"""

from __future__ import annotations

from typing import Any

BAD_CREDENTIALS = (
    "authentication_failed: the Authorization header names an unknown or revoked token "
    "(any operation, public ones too); not_authenticated where signing in is required."
)


def document_bad_credentials(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    error = {"$ref": "#/components/schemas/Error"}
    for path_item in result.get("paths", {}).values():
        for operation in path_item.values():
            # ({} in the list: credentials optional; an operation reading none has only {})
            if not isinstance(operation, dict) or not any(operation.get("security", [])):
                continue
            responses = operation.setdefault("responses", {})
            responses.setdefault(
                "401",
                {
                    "description": BAD_CREDENTIALS,
                    "content": {"application/json": {"schema": error}},
                },
            )
    return result
