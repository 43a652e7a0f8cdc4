"""Hypothesis strategies for hostile input: what an attacker sends instead of what the
schema asks for (deep nesting, huge numbers, NUL and lone surrogates, wrong types,
oversize), mixed with well-formed values so that requests also get past the first check."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from hypothesis import strategies as st

HUGE_NUMBERS = [
    2**31,
    2**63 - 1,
    2**63,
    -(2**63) - 1,
    10**20,
    10**300,
    -1,
    0,
    1.5,
    1e308,
    -0.0,
]
NASTY_TEXTS = [
    "",
    " " * 10,
    "\x00",
    "a\x00b",
    "\ud800",
    "\udfff",
    "\U0001f0a1",
    "%00",
    "../../etc/passwd",
    "' OR 1=1 --",
    "<script>alert(1)</script>",
    "t1-c1",
    "deal",
    "undo",
    "ping",
    "astrocyte",
    "spider4",
    "x" * 200,
    "9" * 30,
    "NaN",
    "-1",
]

nasty_text = st.one_of(st.sampled_from(NASTY_TEXTS), st.text(max_size=40))
nasty_number = st.one_of(
    st.sampled_from(HUGE_NUMBERS), st.integers(), st.floats(allow_nan=False, allow_infinity=False)
)
json_scalar = st.one_of(st.none(), st.booleans(), nasty_number, nasty_text)
json_value = st.recursive(
    json_scalar,
    lambda children: st.one_of(
        st.lists(children, max_size=6), st.dictionaries(nasty_text, children, max_size=6)
    ),
    max_leaves=25,
)


def deep(depth: int, opener: str = "[") -> str:
    closer = {"[": "]", "{": "}"}[opener]
    if opener == "{":
        return '{"a":' * depth + "1" + "}" * depth
    return opener * depth + closer * depth


RAW_BODIES = [
    deep(5000).encode(),
    deep(3000, "{").encode(),
    ("[" * 100_000).encode(),
    b'{"offset": ' + b"9" * 5000 + b', "actions": ["undo"]}',
    b'{"offset": NaN, "actions": ["undo"]}',
    b'{"offset": Infinity}',
    b'{"username": "\\ud800", "password": "\\u0000"}',
    b"\xff\xfe\x00garbage",
    b"",
    b"null",
    b'"just a string"',
    b"[]",
    b'{"actions": ' + json.dumps(["undo"] * 5000).encode() + b', "offset": 0}',
    b'{"username": "' + b"x" * 30_000 + b'"}',
]

raw_body = st.sampled_from(RAW_BODIES)


def shaped_body(fields: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[Any]:
    """An object with the schema's field names (some left out) and hostile values."""
    return st.fixed_dictionaries({}, optional=fields)


def encode_path_value(value: str) -> str:
    # Lone surrogates cannot be UTF-8: sent as the bytes a sloppy encoder would produce.
    return quote(value.encode("utf-8", "surrogatepass"), safe="")


def query_string(params: dict[str, str]) -> str:
    return "&".join(
        f"{encode_path_value(name)}={encode_path_value(value)}" for name, value in params.items()
    )
