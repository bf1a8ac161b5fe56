#!/usr/bin/env python3
"""Where the clicks of a sped-up flash-and-click clip landed: decodes the first audio
stream with the ffmpeg CLI (mono, 48 kHz float) and matches each click (the first sample
above 0.3 after 30 ms without one) with its ideal time, second k of the source at k / RATE.

Usage: click-offsets.py FILE RATE COUNT
Prints: lost N/COUNT, offsets min/max/mean in ms, the sound's and picture's durations.
"""
import array, json, subprocess, sys

path, rate, count = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
raw = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-map", "0:a:0", "-ac", "1", "-ar", "48000",
                      "-f", "f32le", "-"], capture_output=True, check=True).stdout
samples = array.array("f")
samples.frombytes(raw[: len(raw) // 4 * 4])
clicks, last = [], -1.0
for index, value in enumerate(samples):
    if value > 0.3 or value < -0.3:
        time = index / 48000
        if time - last > 0.03:
            clicks.append(time)
        last = time
offsets, lost = [], 0
for k in range(count):
    ideal = k / rate
    near = [c for c in clicks if abs(c - ideal) <= 0.45 / rate]
    if not near:
        lost += 1
        continue
    offsets.append((min(near, key=lambda c: abs(c - ideal)) - ideal) * 1000)
probe = json.loads(subprocess.run(["ffprobe", "-v", "error", "-of", "json", "-show_streams", path],
                                  capture_output=True, check=True).stdout)
durations = {s["codec_type"]: float(s.get("duration", "nan")) for s in probe["streams"]}
worst = max(offsets, key=abs) if offsets else float("nan")
print(f"lost {lost:2d}/{count}  offsets {min(offsets, default=float('nan')):7.1f} .. {max(offsets, default=float('nan')):6.1f} ms"
      f" (worst {worst:7.1f})  picture {durations.get('video', float('nan')):8.3f} s  sound {durations.get('audio', float('nan')):8.3f} s")
