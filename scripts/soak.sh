#!/bin/bash
# make soak: long runs that watch memory, not part of make test.
#   1. Record SOAK_MINUTES (30) from the virtual camera and microphone: after a minute of
#      warm-up the resident memory may grow by less than 10 MB, and no frame may drop.
#   2. Export a composition of EXPORT_MINUTES (10) through EXPORT_PRESET (640x480, the seed's
#      export): the resident memory stays under 300 MB. (Through 1280x720 libx264's medium
#      preset alone holds about 275 MB of look-ahead frames, as the ffmpeg CLI does too.)
#   3. Load `reel studio` for STUDIO_SECONDS (120) with 50 preview viewers (fast, slow and
#      stalled) and API clients (scripts/studio-load.py): no frame dropped, memory bounded.
#   4. Record REPLAY_MINUTES (30) with a REPLAY_SECONDS (30) replay buffer: memory and the
#      buffer's folder bounded, and a replay saved near the end checked frame by frame.
# Usage: scripts/soak.sh [REEL_BINARY]; SOAK_PRESET (1280x720), SOAK_WARMUP (60 s) and
# SOAK_ONLY (record, export, studio or replay) adjust it.
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
if [ -z "$only" ] || [ "$only" = replay ]; then
    # 4. A REPLAY_MINUTES (30) recording with a REPLAY_SECONDS (30) replay buffer: the
    #    buffer's folder stays within N + 3 segments and its bytes bounded, the resident memory
    #    grows by less than 10 MB after the warm-up, and a replay saved (SIGUSR1) a minute
    #    before the end holds the recording's own frames (the virtual camera's frame counter),
    #    exactly the N s before the signal (a frame either way, less what the camera dropped at
    #    its ends), with every flash's click in sync.
    replay_minutes=${REPLAY_MINUTES:-30}
    replay_seconds=${REPLAY_SECONDS:-30}
    replay_preset=${REPLAY_PRESET:-640x480}
    seconds=$((replay_minutes * 60))
    mkdir -p "$work/replay"
    out="$work/replay/main.mp4"
    echo "soak: recording $replay_minutes min at $replay_preset with a $replay_seconds s replay buffer"
    "$reel" record --device virtual:camera --preset "$replay_preset" --max-duration "$seconds" \
        --replay-buffer "$replay_seconds" -o "$out" < /dev/null 2> "$work/replay.err" &
    pid=$!
    start=$(date +%s.%N)
    # The recording starts once the devices are open (its file appears then): the signal's
    # moment in the recording is measured from there.
    recstart=""
    for _ in $(seq 600); do
        if [ -e "$work/replay/main.partial.mp4" ]; then recstart=$(echo "$(date +%s.%N) - $start" | bc); break; fi
        sleep 0.05
    done
    # RSS and the buffer folder (files, bytes) every 10 s, beside the recording.
    (
        while kill -0 "$pid" 2>/dev/null; do
            now=$(echo "$(date +%s.%N) - $start" | bc)
            rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
            folder=$(find "$work/replay" -maxdepth 1 -name '.main.replay-*' -type d | head -1)
            files=0; bytes=0
            if [ -n "$folder" ]; then
                files=$(find "$folder" -maxdepth 1 -name '*.m4s' | wc -l)
                bytes=$(du -sb "$folder" 2>/dev/null | cut -f1)
            fi
            [ -n "$rss" ] && echo "$now $rss $files ${bytes:-0}" >> "$work/replay.samples"
            sleep 10
        done
    ) &
    sampler=$!
    # The signal a minute before the end; the moments of the signal and the end, exactly.
    sleep $((seconds - 60))
    signalled=$(echo "$(date +%s.%N) - $start" | bc)
    kill -USR1 "$pid"
    echo "soak: SIGUSR1 at ${signalled} s after the start"
    status=0
    wait "$pid" || status=$?
    wait "$sampler" 2>/dev/null || true
    [ "$status" = 0 ] || { echo "soak: reel record --replay-buffer failed: $(tail -3 "$work/replay.err")"; exit 1; }
    cp "$work/replay.samples" "${REPLAY_SAMPLES:-/dev/null}" 2>/dev/null || true
    tail -3 "$work/replay.err" | sed 's/^/soak: /'
    # Growth while recording (after the warm-up, before the save); the save (a join and the
    # sound encoded again) and the end (the whole file's index) have peaks of their own.
    read -r base growth peak mostfiles mostbytes top <<< "$(awk -v w="$warmup" -v s="$signalled" '
        $1 >= w && $1 < s && !b {b = $2} $1 >= w && $1 < s {if ($2 > p) p = $2; if ($3 > f) f = $3; if ($4 > y) y = $4}
        {if ($2 > t) t = $2} END {print b, p - b, p, f, y, t}' "$work/replay.samples")"
    echo "soak: replay run RSS after ${warmup} s ${base} kB, at most ${peak} kB until the save, growth $((growth / 1024)) MB;" \
        "${top} kB at most with the save and the end; buffer folder at most $mostfiles segments, $((mostbytes / 1024)) kB" \
        "(sampled every 10 s)"
    if [ "$growth" -ge $((10 * 1024)) ]; then echo "soak: FAIL: memory grew by $((growth / 1024)) MB"; failed=1; fi
    if [ "$mostfiles" -gt $((replay_seconds + 3)) ]; then echo "soak: FAIL: $mostfiles segments in the buffer"; failed=1; fi
    replay=$(find "$work/replay" -maxdepth 1 -name 'replay-*.mp4' | head -1)
    if [ -z "$replay" ]; then
        echo "soak: FAIL: no replay saved"; failed=1
    else
        # The signal's moment in the recording: from the recording's start (its file appearing).
        python3 "$(dirname "$0")/replay-check.py" "$out" "$replay" "$replay_seconds" \
            "$(echo "$signalled - ${recstart:-0}" | bc)" || failed=1
    fi
fi
exit $failed
