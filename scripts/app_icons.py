#!/usr/bin/env python3
"""Draw the web app's icons (frontend/static/frontend/icons/): PNGs at 192 and 512 pixels,
and a maskable one whose drawing keeps inside the middle 80 % (the safe zone a phone's mask
never cuts). Standard library only (zlib, struct): run it again after changing the drawing.

    python3 scripts/app_icons.py
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

ICONS = Path(__file__).resolve().parent.parent / "frontend" / "static" / "frontend" / "icons"
FELT = (0x0B, 0x3D, 0x2E)  # the dark theme's --felt (site.css)
CARD = (0xFF, 0xFD, 0xF7)  # --card
ACCENT = (0xFF, 0xD6, 0x6B)  # --accent
RED = (0xC1, 0x12, 0x1F)  # --red


def png(width: int, height: int, rows: list[bytes]) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    raw = b"".join(b"\x00" + row for row in rows)  # filter type 0 on every row
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def in_rounded_box(x: float, y: float, box: tuple[float, float, float, float], r: float) -> bool:
    left, top, right, bottom = box
    if not (left <= x <= right and top <= y <= bottom):
        return False
    cx = min(max(x, left + r), right - r)
    cy = min(max(y, top + r), bottom - r)
    return (x - cx) ** 2 + (y - cy) ** 2 <= r * r


def in_diamond(x: float, y: float, cx: float, cy: float, half_w: float, half_h: float) -> bool:
    return abs(x - cx) / half_w + abs(y - cy) / half_h <= 1.0


def draw(size: int, scale: float) -> bytes:
    """Two fanned cards on the felt with a red diamond: ``scale`` is the share of the icon
    the drawing spans (0.8 keeps a maskable icon's drawing in its safe zone)."""
    rows = []
    unit = size * scale
    origin = (size - unit) / 2
    back = (origin + 0.10 * unit, origin + 0.04 * unit, origin + 0.62 * unit, origin + 0.76 * unit)
    front = (origin + 0.36 * unit, origin + 0.22 * unit, origin + 0.90 * unit, origin + 0.96 * unit)
    radius = 0.06 * unit
    for j in range(size):
        row = bytearray()
        for i in range(size):
            x, y = i + 0.5, j + 0.5
            colour = FELT
            if in_rounded_box(x, y, back, radius):
                colour = ACCENT
            if in_rounded_box(x, y, front, radius):
                colour = CARD
                if in_diamond(
                    x, y, origin + 0.63 * unit, origin + 0.59 * unit, 0.15 * unit, 0.22 * unit
                ):
                    colour = RED
            row += bytes(colour)
        rows.append(bytes(row))
    return png(size, size, rows)


def main() -> None:
    ICONS.mkdir(parents=True, exist_ok=True)
    for name, size, scale in (
        ("icon-192.png", 192, 0.9),
        ("icon-512.png", 512, 0.9),
        ("icon-maskable-512.png", 512, 0.72),
    ):
        (ICONS / name).write_bytes(draw(size, scale))
        print(f"wrote {ICONS / name}")


if __name__ == "__main__":
    main()
