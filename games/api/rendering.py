"""Answers rendered through the serializers their OpenAPI schema is made from, cheaply.

``SerializerClass(value).data`` makes a new serializer per answer, and making one deep-copies
every declared field (the State JSON's nested lists included): a third of an action post's
CPU when measured (docs/api.md). A serializer's ``to_representation`` depends only on its
fields, so each thread keeps one instance per class and renders with it.
"""

from __future__ import annotations

import threading
from typing import Any

from rest_framework import serializers

_local = threading.local()


def render(serializer_class: type[serializers.BaseSerializer[Any]], value: Any) -> Any:
    """``serializer_class(value).data``, with one serializer per class and thread."""
    made: dict[type[Any], serializers.BaseSerializer[Any]] = _local.__dict__.setdefault(
        "serializers", {}
    )
    serializer = made.get(serializer_class)
    if serializer is None:
        serializer = made[serializer_class] = serializer_class()
    return serializer.to_representation(value)
