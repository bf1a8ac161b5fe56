#!/usr/bin/env python3
"""Judges a recording of a flash-and-click clip played on screen (scripts/play-bench.sh):
flashes from each grabbed frame's mean luma (the first bright frame of each run), clicks
from the sound (the first sample above 0.1 after 0.2 s of quiet), both on the wall clock
the recorder stamped them with; prints each click minus its nearest flash, in ms."""
import array
import statistics
import subprocess
import sys

path = sys.argv[1]
run = lambda *args: subprocess.run(args, capture_output=True, check=True).stdout
luma = run("ffprobe", "-v", "error", "-f", "lavfi", "-i", f"movie={path},signalstats",
           "-show_entries", "frame=pts_time:frame_tags=lavfi.signalstats.YAVG", "-of", "csv=p=0").decode()
flashes, bright = [], False
for line in luma.splitlines():
    fields = line.split(",")
    try:
        time, mean = float(fields[0]), float(fields[1])
    except (ValueError, IndexError):
        continue
    if mean > 128 and not bright:
        flashes.append(time)
    bright = mean > 128
start = float(run("ffprobe", "-v", "error", "-select_streams", "a", "-show_entries", "stream=start_time",
                  "-of", "csv=p=0", path).decode().strip())
samples = array.array("f", run("ffmpeg", "-v", "error", "-i", path, "-map", "0:a", "-ac", "1", "-f", "f32le", "-"))
clicks, last = [], -10**9
for index, sample in enumerate(samples):
    if abs(sample) > 0.1:
        if index - last > 48000 // 5:
            clicks.append(start + index / 48000)
        last = index
offsets = []
for click in clicks:
    if flashes:
        nearest = min(flashes, key=lambda f: abs(f - click))
        if abs(nearest - click) < 0.4:
            offsets.append((click - nearest) * 1000)
if offsets:
    print(f"click minus flash mean {statistics.mean(offsets):+6.1f} ms, worst {max(offsets, key=abs):+6.1f} ms, "
          f"{len(offsets)} matched of {len(flashes)} flashes and {len(clicks)} clicks")
else:
    print(f"no click matched a flash ({len(flashes)} flashes, {len(clicks)} clicks)")
