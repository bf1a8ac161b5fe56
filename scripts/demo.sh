#!/usr/bin/env bash
# make demo: probe the seed clips, or clips made here when ../shared is absent.
set -euo pipefail
reel=${1:?reel binary}; clips=${2:?clip dir}
files=()
if compgen -G "$clips/*.mp4" >/dev/null; then
  files=("$clips"/*.mp4)
else
  echo "($clips is absent: probing clips made here instead)"
  work=${TMPDIR:-/tmp}/reel-demo; mkdir -p "$work"
  ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=size=1280x720:rate=25:duration=4 \
    -f lavfi -i sine=frequency=440:sample_rate=48000:duration=4 -shortest \
    -c:v libx264 -preset veryfast -pix_fmt yuv420p -c:a aac -movflags +faststart "$work/landscape.mp4"
  ffmpeg -nostdin -v error -y -i "$work/landscape.mp4" -c copy -metadata:s:v rotate=270 "$work/portrait.mp4"
  files=("$work/landscape.mp4" "$work/portrait.mp4")
fi
"$reel" probe "${files[@]}"
