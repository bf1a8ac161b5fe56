#!/bin/bash
# make soak: long runs that watch memory, not part of make test.
#   1. Record SOAK_MINUTES (30) from the virtual camera and microphone: after a minute of
#      warm-up the resident memory may grow by less than 10 MB, and no frame may drop.
#   2. Export a composition of EXPORT_MINUTES (10) through EXPORT_PRESET (640x480, the seed's
#      export): the resident memory stays under 300 MB. (Through 1280x720 libx264's medium
#      preset alone holds about 275 MB of look-ahead frames, as the ffmpeg CLI does too.)
#   3. Load `reel studio` for STUDIO_SECONDS (120) with 50 preview viewers (fast, slow and
#      stalled) and API clients (scripts/studio-load.py): no frame dropped, memory bounded.
# Usage: scripts/soak.sh [REEL_BINARY]; SOAK_PRESET (1280x720), SOAK_WARMUP (60 s) and
# SOAK_ONLY (record, export or studio) adjust it.
set -euo pipefail
reel=${1:-.build/release/reel}
minutes=${SOAK_MINUTES:-30}
export_minutes=${EXPORT_MINUTES:-10}
preset=${SOAK_PRESET:-1280x720}
warmup=${SOAK_WARMUP:-60}
export_preset=${EXPORT_PRESET:-640x480}
only=${SOAK_ONLY:-}
work=$(mktemp -d /tmp/reel-soak-XXXXXX)
trap 'rm -rf "$work"' EXIT
failed=0

# Samples VmRSS (kB) of PID once a second into FILE until the process ends: "seconds kB".
sample_rss() {
    local pid=$1 file=$2 start
    start=$(date +%s.%N)
    while kill -0 "$pid" 2>/dev/null; do
        local rss
        rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
        [ -n "$rss" ] && echo "$(echo "$(date +%s.%N) - $start" | bc) $rss" >> "$file"
        sleep 1
    done
}

if [ -z "$only" ] || [ "$only" = record ]; then
    seconds=$((minutes * 60))
    out="$work/soak.mp4"
    echo "soak: recording $minutes min at $preset from virtual:camera and virtual:microphone"
    "$reel" record --device virtual:camera --preset "$preset" --max-duration "$seconds" -o "$out" 2> "$work/record.err" &
    pid=$!
    sample_rss "$pid" "$work/record.rss"
    wait "$pid" || { echo "soak: reel record failed: $(cat "$work/record.err")"; exit 1; }
    line=$(tail -1 "$work/record.err")
    dropped=$(echo "$line" | sed -n 's/.* \([0-9]*\) dropped$/\1/p')
    packets=$(ffprobe -v error -select_streams v:0 -count_packets -show_entries stream=nb_read_packets -of csv=p=0 "$out")
    expected=$((seconds * 30))
    read -r base growth peak <<< "$(awk -v w="$warmup" '$1 >= w && !b {b = $2} $1 >= w {if ($2 > p) p = $2} END {print b, p - b, p}' "$work/record.rss")"
    echo "soak: $line"
    echo "soak: recording RSS after ${warmup} s warm-up ${base} kB, peak ${peak} kB, growth $((growth / 1024)) MB; $packets of $expected frames in the file"
    if [ "${dropped:-1}" != 0 ]; then echo "soak: FAIL: ${dropped:-unknown} frames dropped"; failed=1; fi
    if [ "$growth" -ge $((10 * 1024)) ]; then echo "soak: FAIL: memory grew by $((growth / 1024)) MB"; failed=1; fi
    if [ $((expected - packets)) -gt 2 ] || [ $((packets - expected)) -gt 2 ]; then
        echo "soak: FAIL: $packets frames in the file, not $expected"; failed=1
    fi
fi

if [ -z "$only" ] || [ "$only" = export ]; then
    echo "soak: exporting a $export_minutes min composition through $export_preset"
    # 61 s of 720p with sound, used EXPORT_MINUTES times with 1 s dissolves between: 10 make 601 s.
    ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=size=1280x720:rate=30:duration=61 \
        -f lavfi -i sine=frequency=440:sample_rate=48000:duration=61 \
        -c:v libx264 -preset ultrafast -pix_fmt yuv420p -c:a aac -shortest "$work/minute.mp4"
    python3 - "$work" "$export_minutes" "$export_preset" <<'PY'
import json, sys
work, minutes, preset = sys.argv[1], int(sys.argv[2]), sys.argv[3]
clips = [{"file": "minute.mp4", "transition": {"type": "dissolve", "duration": 1}} for _ in range(minutes)]
clips[-1].pop("transition")
json.dump({"preset": preset, "clips": clips}, open(f"{work}/long.json", "w"))
PY
    start=$(date +%s)
    "$reel" compose "$work/long.json" -o "$work/long.mp4" 2> "$work/export.err" &
    pid=$!
    sample_rss "$pid" "$work/export.rss"
    wait "$pid" || { echo "soak: reel compose failed: $(tail -1 "$work/export.err")"; exit 1; }
    peak=$(awk '{if ($2 > p) p = $2} END {print p}' "$work/export.rss")
    length=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$work/long.mp4")
    echo "soak: export of ${length} s took $(( $(date +%s) - start )) s, peak RSS $((peak / 1024)) MB"
    if [ "$peak" -ge $((300 * 1024)) ]; then echo "soak: FAIL: export peaked at $((peak / 1024)) MB"; failed=1; fi
fi
if [ -z "$only" ] || [ "$only" = studio ]; then
    echo "soak: loading reel studio for ${STUDIO_SECONDS:-120} s"
    "$reel" studio --port 0 --library "$work/library" > "$work/studio.out" 2>&1 &
    pid=$!
    url=""
    for _ in $(seq 100); do
        url=$(sed -n 's|^Reel Studio: \(http://[^ ]*\)$|\1|p' "$work/studio.out")
        [ -n "$url" ] && break
        sleep 0.1
    done
    if [ -z "$url" ]; then
        echo "soak: reel studio did not start: $(cat "$work/studio.out")"; failed=1
    else
        python3 "$(dirname "$0")/studio-load.py" "$url" "$pid" "${STUDIO_SECONDS:-120}" || failed=1
    fi
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
fi
exit $failed
