#!/usr/bin/env bash
# make bench: Reel beside its outside reference on the same work, in one run.
# Each job runs 5 times; the median wall time is reported with the ratio.
set -euo pipefail
reel=${1:?reel binary}; clips=${2:?clip dir}
runs=${BENCH_RUNS:-5}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
seconds() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N); echo "$t1 - $t0" | bc -l; }
measure() { for _ in $(seq "$runs"); do seconds "$@"; done | median; }
report() { # name reel_seconds reference_name reference_seconds
  printf '%-34s reel %8.3f s   %-14s %8.3f s   ratio %5.2f\n' "$1" "$2" "$3" "$4" "$(echo "$2 / $4" | bc -l)"
}

if ! compgen -G "$clips/*.mp4" >/dev/null; then
  echo "bench: $clips is absent; the benchmarks run on the seed clips" >&2
  exit 1
fi
command -v bc >/dev/null || { echo "bench: needs bc (apt-get install bc)" >&2; exit 1; }

seeds=("$clips"/0[1-5]_*.mp4)
r=$(measure "$reel" probe "${seeds[@]}")
f=$(measure sh -c 'for f in "$@"; do ffprobe -v error -show_format -show_streams "$f"; done' sh "${seeds[@]}")
report "probe 5 seed clips" "$r" "ffprobe" "$f"

clip="$clips/01_nebula.mp4"
r=$(measure "$reel" transcode "$clip" -o "$work/reel.mp4" --preset medium --crf 23)
f=$(measure ffmpeg -nostdin -y -v error -i "$clip" -c:v libx264 -preset medium -crf 23 -pix_fmt yuv420p -c:a aac -movflags +faststart "$work/ffmpeg.mp4")
report "transcode 01_nebula x264 medium 23" "$r" "ffmpeg" "$f"

r=$(measure "$reel" thumbnail "$clip" --at 7.5 -o "$work/thumb.png")
f=$(measure ffmpeg -nostdin -y -v error -ss 7.5 -i "$clip" -frames:v 1 "$work/thumb-ffmpeg.png")
report "thumbnail at 7.5 s" "$r" "ffmpeg" "$f"
