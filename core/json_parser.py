"""DRF's JSON parser, with a body nested thousands deep answered 400 instead of 500.

Python's JSON decoder recurses once per level of nesting and raises ``RecursionError``
(not the ``ValueError`` DRF's parser turns into a 400) past the interpreter's limit. The
body budget (core/request_guard.py) bounds how much decoding that costs first.
"""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


class BoundedJSONParser(JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - the body is nested too deep.") from None
