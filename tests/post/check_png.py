"""Checks that a file is a PNG picture with something drawn in it (standard library only).

    check_png.py FILE [--min-size WxH] [--max-size WxH] [--min-colours N] [--max-share F]

Fails (status 1, one line saying why) unless FILE is a complete PNG (signature, chunk CRCs,
IHDR, IDAT, IEND) of 8-bit grey, RGB or RGBA pixels, its size lies within the bounds, it has
at least --min-colours distinct colours and no single colour covers more than --max-share of
the pixels (a blank or one-colour picture fails).
"""
import argparse
import struct
import sys
import zlib
from collections import Counter


def fail(path, why):
    print("check_png: %s: FAIL: %s" % (path, why))
    sys.exit(1)


def chunks(path, data):
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(path, "not a PNG (bad signature)")
    pos = 8
    while pos < len(data):
        if pos + 12 > len(data):
            fail(path, "truncated chunk at byte %d" % pos)
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        crc = data[pos + 8 + length:pos + 12 + length]
        if len(body) != length or len(crc) != 4:
            fail(path, "truncated %s chunk" % kind.decode("latin-1"))
        if zlib.crc32(kind + body) != struct.unpack(">I", crc)[0]:
            fail(path, "CRC mismatch in %s chunk" % kind.decode("latin-1"))
        yield kind, body
        pos += 12 + length
        if kind == b"IEND":
            return
    fail(path, "no IEND chunk")


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else (b if pb <= pc else c)


def pixels(path, width, height, bpp, raw):
    """The rows of the image, unfiltered (PNG filter types 0-4)."""
    stride = width * bpp
    if len(raw) != height * (stride + 1):
        fail(path, "image data has %d bytes, expected %d" % (len(raw), height * (stride + 1)))
    prev = bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        row = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                row[i] = (row[i] + row[i - bpp]) & 0xFF
        elif f == 2:
            row = bytearray((a + b) & 0xFF for a, b in zip(row, prev))
        elif f == 3:
            for i in range(stride):
                left = row[i - bpp] if i >= bpp else 0
                row[i] = (row[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif f == 4:
            for i in range(stride):
                left = row[i - bpp] if i >= bpp else 0
                up_left = prev[i - bpp] if i >= bpp else 0
                row[i] = (row[i] + paeth(left, prev[i], up_left)) & 0xFF
        elif f != 0:
            fail(path, "unknown filter type %d in row %d" % (f, y))
        yield bytes(row)
        prev = row


def size(text):
    w, h = text.lower().split("x")
    return int(w), int(h)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("png")
    ap.add_argument("--min-size", type=size, default=(300, 200))
    ap.add_argument("--max-size", type=size, default=(4000, 4000))
    ap.add_argument("--min-colours", type=int, default=16)
    ap.add_argument("--max-share", type=float, default=0.97)
    args = ap.parse_args()

    path = args.png
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        fail(path, "cannot read it: %s" % e)
    header, idat = None, []
    for kind, body in chunks(path, data):
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
    if header is None or not idat:
        fail(path, "no IHDR or no IDAT chunk")
    width, height, depth, colour, _, _, interlace = header
    channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(colour)
    if depth != 8 or channels is None or interlace != 0:
        fail(path, "bit depth %d, colour type %d, interlace %d: expected 8-bit grey/RGB(A), "
             "not interlaced" % (depth, colour, interlace))
    if not (args.min_size[0] <= width <= args.max_size[0]
            and args.min_size[1] <= height <= args.max_size[1]):
        fail(path, "%d x %d pixels, expected between %d x %d and %d x %d"
             % ((width, height) + args.min_size + args.max_size))
    try:
        raw = zlib.decompress(b"".join(idat))
    except zlib.error as e:
        fail(path, "image data do not decompress: %s" % e)

    counts = Counter()
    for row in pixels(path, width, height, channels, raw):
        counts.update(row[i:i + channels] for i in range(0, len(row), channels))
    total = width * height
    colour, top = counts.most_common(1)[0]
    share = top / total
    if len(counts) < args.min_colours:
        fail(path, "%d distinct colours, expected at least %d" % (len(counts), args.min_colours))
    if share > args.max_share:
        fail(path, "one colour covers %.1f%% of the pixels (blank?), expected at most %.1f%%"
             % (100 * share, 100 * args.max_share))
    print("check_png: %s: ok: %d x %d, %d bytes, %d colours, most common %.1f%%"
          % (path, width, height, len(data), len(counts), 100 * share))


if __name__ == "__main__":
    main()
