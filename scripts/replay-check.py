#!/usr/bin/env python3
"""Checks a replay saved from `reel record --replay-buffer N` against its recording (make soak).

Usage: replay-check.py RECORDING.mp4 REPLAY.mp4 N SIGNAL_SECONDS

Both files come from the virtual camera and microphone: each frame carries its counter in 16
blocks along the top (white = 1), the first frame of every second is a white flash and the
sound has a 10 ms click at each. Passes when the replay's frames are the recording's own, in
order, it lasts N s (within a frame), its first and last frames are N s apart in the
recording (less the frames the camera dropped at its two ends, at most 0.5 s), it ends at the
signal (SIGNAL_SECONDS into the recording, measured by the caller, known to about a quarter
second), and every flash in it has its click within a frame. Prints one line of numbers;
exits 1 on a failure.
"""
import json
import re
import subprocess
import sys


def probe(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                          "stream=width:format=duration", "-of", "json", path],
                         check=True, capture_output=True, text=True).stdout
    data = json.loads(out)
    return int(data["streams"][0]["width"]), float(data["format"]["duration"])


def frames(path, start=None):
    """(counter, time, flash) of each frame, from START seconds on."""
    width, _ = probe(path)
    row = width
    seek = ["-ss", f"{start:.3f}"] if start else []
    graph = "[0:v]format=gray,split[a][b];[a]crop=256:1:0:8[c];[b]crop=iw:1:0:100[d];[c][d]hstack,showinfo"
    proc = subprocess.run(["ffmpeg", "-nostdin", "-v", "info", "-copyts"] + seek +
                          ["-i", path, "-filter_complex", graph, "-fps_mode", "passthrough", "-f", "rawvideo", "-"],
                          capture_output=True, check=True)
    times = [float(m) for m in re.findall(rb"pts_time:\s*([-0-9.e]+)", proc.stderr)]
    size = 256 + row
    data = proc.stdout
    result = []
    for index in range(len(data) // size):
        line = data[index * size:(index + 1) * size]
        counter = sum(1 << bit for bit in range(16) if line[bit * 16 + 8] > 128)
        bright = sum(line[256:]) / row
        result.append((counter, times[index] if index < len(times) else float("nan"), bright > 215))
    return result


def clicks(path):
    """Onsets of the clicks (s): a sample above a fifth of full scale after 0.3 s of quiet."""
    raw = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-ac", "1", "-ar", "48000",
                          "-f", "s16le", "-"], capture_output=True, check=True).stdout
    samples = memoryview(raw).cast("h")
    onsets, last = [], -48000
    for index, sample in enumerate(samples):
        if abs(sample) > 6500:
            if index - last > 14400:
                onsets.append(index / 48000)
            last = index
    return onsets


def main():
    recording, replay, seconds, signal = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
    failures = []
    saved = frames(replay)
    _, length = probe(replay)
    if not saved:
        print("replay-check: FAIL: no frames in the replay")
        return 1
    # The recording's frames from N + 30 s before the signal on.
    recorded = frames(recording, max(0.0, signal - seconds - 30))
    where = {counter: time for counter, time, _ in recorded}
    first, last = saved[0][0], saved[-1][0]
    if first not in where or last not in where:
        failures.append(f"counters {first}-{last} are not in the recording")
    else:
        run = [c for c, _, _ in recorded if where[first] <= where[c] <= where[last]]
        position = 0
        for counter, _, _ in saved:
            while position < len(run) and run[position] != counter:
                position += 1
        if position >= len(run):
            failures.append("the replay's counters are not the recording's in order")
        missing = len(run) - len(saved)
        if missing > 10:
            failures.append(f"{missing} frames left out")
        start, end = where[first], where[last]
        # The signal's moment is known to about a quarter second (the recorder's start-up, the
        # buffer's encoder delay): a release run at load 4 started 0.22 s after the estimate.
        if end < signal - 0.5 or end > signal + 0.5:
            failures.append(f"ends at {end:.3f} s, the signal at about {signal:.3f} s")
        # The last frame shows until the end, the first from before the start: N s less a frame
        # apart, less what the camera dropped at either end.
        span = end - start + 1 / 30
        if span > seconds + 0.001 or span < seconds - 0.5:
            failures.append(f"its first and last frames are {span:.3f} s apart (a frame included) in the recording, not {seconds:.3f} s")
    if abs(length - seconds) > 0.034:
        failures.append(f"{length:.3f} s long, not {seconds:.3f} s")
    flashes = [time for _, time, flash in saved if flash]
    heard = clicks(replay)
    offsets = []
    for flash in flashes:
        near = [click - flash for click in heard if abs(click - flash) < 0.2]
        if not near:
            failures.append(f"no click at the flash at {flash:.3f} s")
        else:
            offsets.append(min(near, key=abs))
    worst = max((abs(o) for o in offsets), default=1.0)
    if len(flashes) < seconds - 1 or worst > 1 / 30 + 0.001:
        failures.append(f"{len(flashes)} flashes, worst click offset {worst * 1000:.1f} ms")
    print(f"replay-check: {len(saved)} frames, counters {first}-{last} ({(last - first + 1) / 30:.3f} s of the camera's 30 fps), "
          f"{length:.3f} s; recording "
          f"{where.get(first, float('nan')):.3f}-{where.get(last, float('nan')):.3f} s, signal at about {signal:.3f} s; "
          f"{len(flashes)} flashes, click offsets {min(offsets, default=0) * 1000:.1f} to {max(offsets, default=0) * 1000:.1f} ms")
    for failure in failures:
        print(f"replay-check: FAIL: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
