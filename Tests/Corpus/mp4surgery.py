#!/usr/bin/env python3
"""Box surgery on small MP4 files, for the bad-input corpus.

  mp4surgery.py IN OUT OPERATION [ARG...]

Operations patch one field in place (offsets are unchanged) or drop a box.
"""
import struct
import sys

CONTAINERS = {b"moov", b"trak", b"mdia", b"minf", b"stbl", b"edts", b"dinf", b"udta", b"mvex"}


def boxes(data, start, end, path=()):
    """Yields (path, offset, size) for every box, depth first."""
    offset = start
    while offset + 8 <= end:
        size, kind = struct.unpack(">I4s", data[offset:offset + 8])
        header = 8
        if size == 1:
            size = struct.unpack(">Q", data[offset + 8:offset + 16])[0]
            header = 16
        elif size == 0:
            size = end - offset
        if size < 8 or offset + size > end:
            return
        here = path + (kind.decode("latin-1"),)
        yield here, offset, size
        if kind in CONTAINERS:
            yield from boxes(data, offset + header, offset + size, here)
        offset += size


def find(data, name, handler=None):
    """The offsets of every box named `name` (a path tail such as 'trak/mdia/mdhd'),
    in tracks whose handler is `handler` ('vide', 'soun') when given."""
    want = tuple(name.split("/"))
    found = []
    tracks = [(o, s) for p, o, s in boxes(data, 0, len(data)) if p[-1] == "trak"]
    for path, offset, size in boxes(data, 0, len(data)):
        if path[-len(want):] != want:
            continue
        if handler is not None:
            trak = next(((o, s) for o, s in tracks if o <= offset < o + s), None)
            if trak is None or handler_of(data, trak) != handler:
                continue
        found.append((offset, size))
    if not found:
        sys.exit(f"mp4surgery: no {name} box" + (f" in a {handler} track" if handler else ""))
    return found


def handler_of(data, trak):
    for path, offset, _ in boxes(data, trak[0] + 8, trak[0] + trak[1]):
        if path[-1] == "hdlr":
            return data[offset + 16:offset + 20].decode("latin-1")
    return None


def put(data, offset, fmt, value):
    data[offset:offset + struct.calcsize(fmt)] = struct.pack(fmt, value)


def main():
    source, target, operation, *args = sys.argv[1:]
    data = bytearray(open(source, "rb").read())
    if operation == "dimensions":  # W H: tkhd and the visual sample entry of the video track
        width, height = int(args[0]), int(args[1])
        for offset, _ in find(data, "tkhd", "vide"):
            extra = 12 if data[offset + 8] == 1 else 0
            put(data, offset + 84 + extra, ">I", width << 16)
            put(data, offset + 88 + extra, ">I", height << 16)
        for offset, _ in find(data, "stbl/stsd", "vide"):
            entry = offset + 16
            put(data, entry + 32, ">H", width)
            put(data, entry + 34, ">H", height)
    elif operation == "timescale":  # HANDLER VALUE: mdhd timescale of one track
        for offset, _ in find(data, "mdia/mdhd", args[0]):
            put(data, offset + 20 + (8 if data[offset + 8] == 1 else 0), ">I", int(args[1]))
    elif operation == "movie-timescale":  # VALUE: mvhd timescale
        for offset, _ in find(data, "moov/mvhd"):
            put(data, offset + 20 + (8 if data[offset + 8] == 1 else 0), ">I", int(args[0]))
    elif operation == "negative-durations":  # mdhd, tkhd, mvhd durations to -1; the elst to a negative time
        for offset, _ in find(data, "mdia/mdhd"):
            put(data, offset + 24, ">I", 0xFFFFFFFF)
        for offset, _ in find(data, "moov/mvhd"):
            put(data, offset + 24, ">I", 0xFFFFFFFF)
        for offset, _ in find(data, "trak/tkhd"):
            put(data, offset + 28, ">I", 0xFFFFFFFF)
        for offset, _ in find(data, "edts/elst"):
            put(data, offset + 16, ">I", 0xFFFFFFF0)  # segment duration
            put(data, offset + 20, ">i", -90000)  # media time
    elif operation == "edit":  # HANDLER DURATION MEDIA_TIME: a track's first edit and duration (movie, media timescale)
        for offset, _ in find(data, "edts/elst", args[0]) + find(data, "trak/tkhd", args[0]) + find(data, "moov/mvhd"):
            if data[offset + 8] != 0:
                sys.exit("mp4surgery: a version 1 box")
        for offset, _ in find(data, "edts/elst", args[0]):
            put(data, offset + 16, ">I", int(args[1]))
            put(data, offset + 20, ">i", int(args[2]))
        for offset, _ in find(data, "trak/tkhd", args[0]):
            put(data, offset + 28, ">I", int(args[1]))
        longest = max(struct.unpack(">I", data[o + 28:o + 32])[0] for o, _ in find(data, "trak/tkhd"))
        for offset, _ in find(data, "moov/mvhd"):
            put(data, offset + 24, ">I", longest)
    elif operation == "add-edit":  # HANDLER DURATION MEDIA_TIME: a one-entry edit list for a track without one
        trak = next(t for t in ((o, s) for p, o, s in boxes(data, 0, len(data)) if p == ("moov", "trak"))
                    if handler_of(data, t) == args[0])
        tkhd = next(o + s for p, o, s in boxes(data, trak[0] + 8, trak[0] + trak[1]) if p[-1] == "tkhd")
        edts = struct.pack(">I4sI4sIIIiI", 36, b"edts", 28, b"elst", 0, 1, int(args[1]), int(args[2]), 0x10000)
        data[tkhd:tkhd] = edts
        moov = next(o for p, o, s in boxes(data, 0, len(data)) if p == ("moov",))
        for at in (moov, trak[0]):  # a fragmented file's data offsets count from each moof: nothing else moves
            put(data, at, ">I", struct.unpack(">I", data[at:at + 4])[0] + len(edts))
    elif operation == "negative-stts":  # every sample delta of the video track -1000
        for offset, _ in find(data, "stbl/stts", "vide"):
            count = struct.unpack(">I", data[offset + 12:offset + 16])[0]
            for index in range(count):
                put(data, offset + 16 + 8 * index + 4, ">i", -1000)
    elif operation == "drop":  # TYPE: removes every top-level box of this type
        kind = args[0].encode()
        out = bytearray()
        for path, offset, size in boxes(data, 0, len(data)):
            if len(path) == 1 and path[0].encode() != kind:
                out += data[offset:offset + size]
        data = out
    elif operation == "grow":  # TYPE BYTES: the top-level box claims BYTES more than it has
        for offset, size in find(data, args[0]):
            put(data, offset, ">I", size + int(args[1]))
    elif operation == "truncate":  # FRACTION: keep this part of the file
        data = data[:int(len(data) * float(args[0]))]
    elif operation == "append":  # BYTES: deterministic garbage after the last box
        seed = 0x2545F491
        for _ in range(int(args[0])):
            seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
            data.append(seed >> 16 & 0xFF)
    else:
        sys.exit(f"mp4surgery: unknown operation {operation}")
    open(target, "wb").write(data)


if __name__ == "__main__":
    main()
