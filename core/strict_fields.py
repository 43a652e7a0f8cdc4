"""JSON body fields that take only their own JSON type.

DRF's ``BooleanField`` takes "yes", "on", 1 or "1" as true and its ``IntegerField`` takes
"3" as 3: right for a query string or a form, where everything is text, but a JSON body
that says ``{"hidden": "yes"}`` is a client's mistake the API names (docs/api.md: booleans
and integers). These refuse anything but ``true``/``false`` and a whole JSON number.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers


class StrictBooleanField(serializers.BooleanField):
    default_error_messages = {"invalid": "Must be true or false (a JSON boolean)."}

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


class StrictIntegerField(serializers.IntegerField):
    default_error_messages = {"invalid": "Must be a whole number (a JSON integer)."}

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return int(super().to_internal_value(data))
