"""Writes images/icon.png (128x128 RGBA) with the standard library only.

A rounded indigo tile with a white document whose frontmatter fence lines and
a check mark stand for "SKILL.md, checked". Run: python3 images/make-icon.py
"""

import math
import struct
import zlib
from pathlib import Path

SIZE = 128
BACKGROUND = (67, 56, 202)  # indigo
PAPER = (255, 255, 255)
INK = (67, 56, 202)
CHECK = (16, 185, 129)  # emerald


def inside_rounded_rect(x: float, y: float, x0: float, y0: float, x1: float, y1: float, r: float) -> bool:
    cx = min(max(x, x0 + r), x1 - r)
    cy = min(max(y, y0 + r), y1 - r)
    return (x - cx) ** 2 + (y - cy) ** 2 <= r * r and x0 <= x <= x1 and y0 <= y <= y1


def distance_to_segment(px: float, py: float, ax: float, ay: float, bx: float, by: float) -> float:
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(px - (ax + t * dx), py - (ay + t * dy))


def pixel(x: int, y: int) -> tuple[int, int, int, int]:
    # Sample the centre of the pixel; 4x4 supersampling smooths the edges.
    samples = []
    for sy in range(4):
        for sx in range(4):
            samples.append(shade(x + (sx + 0.5) / 4, y + (sy + 0.5) / 4))
    coverage = [s for s in samples if s is not None]
    if not coverage:
        return (0, 0, 0, 0)
    alpha = round(255 * len(coverage) / len(samples))
    r = sum(c[0] for c in coverage) // len(coverage)
    g = sum(c[1] for c in coverage) // len(coverage)
    b = sum(c[2] for c in coverage) // len(coverage)
    return (r, g, b, alpha)


def shade(x: float, y: float) -> tuple[int, int, int] | None:
    if not inside_rounded_rect(x, y, 4, 4, 124, 124, 24):
        return None
    # The check mark sits over the lower right corner of the page.
    if distance_to_segment(x, y, 70, 92, 84, 106) <= 6 or distance_to_segment(x, y, 84, 106, 110, 72) <= 6:
        return CHECK
    if inside_rounded_rect(x, y, 30, 22, 90, 106, 6):
        for line_y, x_end in ((36, 76), (48, 70), (60, 76)):
            if abs(y - line_y) <= 2.5 and 40 <= x <= x_end:
                return INK if line_y != 48 else (129, 140, 248)
        if abs(y - 72) <= 2 and 40 <= x <= 62:
            return (165, 180, 252)
        return PAPER
    return BACKGROUND


def png(width: int, height: int, rows: list[bytes]) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\x00" + row for row in rows)
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def main() -> None:
    rows = [b"".join(bytes(pixel(x, y)) for x in range(SIZE)) for y in range(SIZE)]
    out = Path(__file__).with_name("icon.png")
    out.write_bytes(png(SIZE, SIZE, rows))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
