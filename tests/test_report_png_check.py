#!/usr/bin/env python3
"""Checks a screenshot PNG (stdlib only): usage FILE WIDTH HEIGHT.
The image has the given size and is not blank: many distinct colours,
including the report's compute green, comm blue and wait red."""
import struct
import sys
import zlib


def pixels(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), f"unexpected PNG type {ctype}/{depth}"
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def main():
    path, W, H = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    w, h, bpp, rows = pixels(path)
    assert (w, h) == (W, H), f"screenshot is {w}x{h}, expected {W}x{H}"
    colours = set()
    for y in range(0, h, 4):
        r = rows[y]
        for x in range(0, w * bpp, bpp * 4):
            colours.add(tuple(r[x:x + 3]))
    assert len(colours) > 50, f"only {len(colours)} colours: a blank page?"
    def near(c, t):
        return all(abs(a - b) < 40 for a, b in zip(c, t))
    for name, t in (("compute", (0x4e, 0x9a, 0x06)), ("comm", (0x34, 0x65, 0xa4)), ("wait", (0xcc, 0, 0))):
        assert any(near(c, t) for c in colours), f"no {name} colour in the screenshot"
    print(f"screenshot ok: {w}x{h}, {len(colours)} colours sampled")


main()
