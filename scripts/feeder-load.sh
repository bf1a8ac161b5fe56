#!/bin/sh
# The player's sound feeder under load: plays a steady tone through `reel play --no-window`
# into a private PulseAudio daemon's null sink while BUSY processes spin on the CPUs,
# records the sink's monitor, and counts the gaps heard (runs of 2 ms or more of silence
# inside the tone) beside the player's own underrun count (--stats).
# Usage: scripts/feeder-load.sh [BUSY] [SECONDS] [REEL]   (defaults: 4 busy loops, 12 s, .build/release/reel)
set -eu
BUSY=${1:-4}
SECONDS_=${2:-12}
REEL=${3:-.build/release/reel}
DIR=$(mktemp -d /tmp/reel-feeder-XXXXXX)
trap 'kill $PA $BUSY_PIDS 2>/dev/null || true; rm -rf "$DIR"' EXIT
ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=size=1280x720:rate=30:duration=$SECONDS_" \
  -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=$SECONDS_" -c:v libx264 -preset ultrafast \
  -pix_fmt yuv420p -c:a aac -shortest "$DIR/tone.mp4"
HOME=$DIR XDG_RUNTIME_DIR=$DIR PULSE_RUNTIME_PATH=$DIR /usr/bin/pulseaudio -n --daemonize=no --exit-idle-time=-1 \
  --disallow-exit --disable-shm=yes --use-pid-file=no -L "module-null-sink sink_name=feed rate=48000 norewinds=1" \
  -L "module-native-protocol-unix auth-anonymous=1 socket=$DIR/native" >/dev/null 2>&1 &
PA=$!
export PULSE_SERVER=unix:$DIR/native
for _ in 1 2 3 4 5 6 7 8 9 10; do pactl info >/dev/null 2>&1 && break; sleep 0.3; done
BUSY_PIDS=
i=0
while [ "$i" -lt "$BUSY" ]; do sh -c 'while :; do :; done' & BUSY_PIDS="$BUSY_PIDS $!"; i=$((i + 1)); done
timeout $((SECONDS_ + 3)) parec --device=feed.monitor --raw --format=float32le --rate=48000 --channels=1 \
  --latency-msec=20 > "$DIR/heard.raw" &
REC=$!
sleep 0.5
STATS=$("$REEL" play "$DIR/tone.mp4" --no-window --audio pulse:feed --stats 2>${FEED_LOG:-/dev/null} | tail -1)
wait $REC || true
kill $BUSY_PIDS 2>/dev/null || true
BUSY_PIDS=
python3 - "$DIR/heard.raw" "$STATS" "$BUSY" <<'PY'
import json, sys
import numpy as np
x = np.fromfile(sys.argv[1], dtype=np.float32)
loud = np.flatnonzero(np.abs(x) > 0.01)
stats = json.loads(sys.argv[2])
if loud.size == 0:
    print(json.dumps({"busy": int(sys.argv[3]), "error": "no tone heard", "stats": stats})); sys.exit(0)
tone = x[loud[0]:loud[-1] + 1]
quiet = np.abs(tone) < 1e-4
# Runs of quiet samples; a 440 Hz sine crosses zero briefly, never for 2 ms (96 samples).
edges = np.diff(np.concatenate(([0], quiet.astype(np.int8), [0])))
starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
runs = ends - starts
gaps = runs[runs >= 96]
at = [round(float(a) / 48000, 3) for a in starts[runs >= 96]][:8]
print(json.dumps({"busy": int(sys.argv[3]), "toneSeconds": round(tone.size / 48000, 3), "gaps": int(gaps.size),
                  "silentMs": round(float(gaps.sum()) / 48, 1), "longestGapMs": round(float(gaps.max()) / 48, 1) if gaps.size else 0,
                  "gapsAtSeconds": at, "playerUnderruns": stats.get("underruns"), "cpuSeconds": stats.get("cpuSeconds")}))
PY
