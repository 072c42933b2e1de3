"""What an image in a tool result costs: the provider's documented rule (assumptions/images.toml)."""

from __future__ import annotations

import base64
import binascii
import math
import re
import struct
from functools import lru_cache

from ..core.assumptions import bundled_toml


@lru_cache(maxsize=1)
def image_rule() -> dict:
    """The image counting rule (assumptions/images.toml, [anthropic])."""
    return bundled_toml("images.toml")["anthropic"]


def image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG, GIF, JPEG or WebP header, or None if it cannot be read."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        return struct.unpack(">II", data[16:24])
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        return struct.unpack("<HH", data[6:10])
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP" and len(data) >= 30:
        chunk = data[12:16]
        if chunk == b"VP8 ":
            w, h = struct.unpack("<HH", data[26:30])
            return w & 0x3FFF, h & 0x3FFF
        if chunk == b"VP8L":
            b = int.from_bytes(data[21:25], "little")
            return (b & 0x3FFF) + 1, ((b >> 14) & 0x3FFF) + 1
        if chunk == b"VP8X":
            return int.from_bytes(data[24:27], "little") + 1, int.from_bytes(data[27:30], "little") + 1
    if data[:2] == b"\xff\xd8":
        i = 2
        while i + 9 < len(data):
            if data[i] != 0xFF:
                return None
            marker = data[i + 1]
            length = int.from_bytes(data[i + 2:i + 4], "big")
            if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
                h, w = struct.unpack(">HH", data[i + 5:i + 9])
                return w, h
            i += 2 + length
    return None


def image_tokens(b64: str, mime: str | None = None) -> tuple[int, str]:
    """Tokens an image costs by the provider rule, and a note when its size could not be read."""
    rule = image_rule()
    text = str(b64)
    if text.startswith("data:"):  # a data URL: data:image/png;base64,....
        text = text.partition(",")[2]
    text = re.sub(r"[^A-Za-z0-9+/]", "", text[:65536])  # the header is enough to read the size
    try:
        head = base64.b64decode(text[:len(text) // 4 * 4])
    except (binascii.Error, ValueError):
        head = b""
    size = image_size(head)
    if size is None or 0 in size:
        return rule["max_tokens"], f"image ({mime or 'unknown type'}) of unreadable size, counted at the cap of {rule['max_tokens']}"
    w, h = size
    scale = min(1.0, rule["max_long_edge"] / max(w, h),
                math.sqrt(rule["max_tokens"] * rule["pixels_per_token"] / (w * h)))
    return min(rule["max_tokens"], math.ceil(int(w * scale) * int(h * scale) / rule["pixels_per_token"])), ""


