"""What a batch of actions must look like: ``{"offset": n, "actions": ["t3-t5:4", ...]}``.

Plainly valid input (the case of every well-behaved client) is taken without the
serializer (``plain_batch``); anything else goes through ``ActionsRequestSerializer``,
whose errors name the field (and the action's index) at fault. Both accept the same
input: tests/games/test_api_attempts.py drives the edge cases through the endpoint.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework import serializers

# An offset no log reaches (a day's play is a few thousand actions), far inside bigint.
MAX_LOG_OFFSET = 1_000_000
# The longest action the notation has room for (docs/rules.md), with some to spare.
MAX_ACTION_CHARS = 16
# Bytes per action in a post's body: a 16-character action, quoted, with room for layout.
ACTION_BODY_BYTES = 48


def actions_body_budget() -> int:
    """The largest batch worth reading: ACTIONS_MAX_BATCH actions, written out."""
    return settings.ACTIONS_MAX_BATCH * ACTION_BODY_BYTES + 1024


def plain_batch(data: Any) -> tuple[int, list[str]] | None:
    """``(offset, actions)`` when ``data`` is plainly what the request serializer takes (an
    object with an integer offset in range and 1 to ACTIONS_MAX_BATCH short ASCII strings),
    else None: then the serializer itself checks it and says what is wrong, in its words."""
    if not isinstance(data, dict):
        return None
    offset, actions = data.get("offset"), data.get("actions")
    if type(offset) is not int or not 0 <= offset <= MAX_LOG_OFFSET:
        return None
    if type(actions) is not list or not 0 < len(actions) <= settings.ACTIONS_MAX_BATCH:
        return None
    for action in actions:
        if (
            type(action) is not str
            or len(action) > MAX_ACTION_CHARS
            or not action.isascii()
            or "\x00" in action
        ):
            return None
    return offset, actions


class StrictActionField(serializers.CharField):
    """An action is a string; DRF's CharField would quietly turn 12 into "12"."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return str(super().to_internal_value(data))


class ActionsRequestSerializer(serializers.Serializer[Any]):
    """A batch: ``offset`` (where it starts in the stored log) and 1 to ACTIONS_MAX_BATCH
    ``actions`` in docs/rules.md's notation."""

    # Fields made anew per request instead of declared: a serializer deep-copies its
    # declared fields on every instantiation, a few per cent of a post (docs/api.md).
    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        return {
            "offset": serializers.IntegerField(min_value=0, max_value=MAX_LOG_OFFSET),
            "actions": serializers.ListField(
                child=StrictActionField(
                    max_length=MAX_ACTION_CHARS, allow_blank=True, trim_whitespace=False
                ),
                min_length=1,
            ),
        }

    def to_internal_value(self, data: Any) -> Any:
        # Count before looking at any item: an oversize batch costs nothing to refuse.
        actions = data.get("actions") if isinstance(data, dict) else None
        if isinstance(actions, list) and len(actions) > settings.ACTIONS_MAX_BATCH:
            raise serializers.ValidationError(
                {"actions": [f"At most {settings.ACTIONS_MAX_BATCH} actions a post."]}
            )
        return super().to_internal_value(data)

    class Meta:
        ref_name = "AttemptActionsRequest"


def batch_input(data: Any) -> tuple[int, list[str]] | dict[str, Any]:
    """``(offset, actions)`` read from ``data``, or the serializer's errors (by field)."""
    batch = plain_batch(data)
    if batch is not None:
        return batch
    serializer = ActionsRequestSerializer(data=data)
    if not serializer.is_valid():
        return dict(serializer.errors)
    return serializer.validated_data["offset"], serializer.validated_data["actions"]
