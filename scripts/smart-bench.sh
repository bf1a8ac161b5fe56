#!/usr/bin/env bash
# Smart render beside Reel's full re-encode of the same edit, one run each (make bench runs it):
#  - a merge of five 10 s 1080p30 H.264 clips of the same parameters (x264 veryfast, CRF 23, a keyframe
#    every second, as phones record) with 1 s dissolves, `--preset highest`: the time of each, their ratio, the frames
#    rendered, and how many frames outside the dissolves differ from their source frame once decoded
#    (ffmpeg -f framemd5; 0 expected);
#  - a 5 s title over a 60 s clip of the same kind: the part of it re-encoded, and the time.
set -euo pipefail
reel=${1:?reel binary}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }
clip() { # name seconds hue
  ffmpeg -nostdin -y -v error -f lavfi -i "testsrc2=size=1920x1080:rate=30:duration=$2,hue=h=$3" \
    -f lavfi -i "sine=frequency=$((200 + $3)):sample_rate=48000:duration=$2" \
    -c:v libx264 -preset veryfast -crf 23 -g 30 -pix_fmt yuv420p -c:a aac -shortest "$work/$1"
}
for i in 0 1 2 3 4; do clip "c$i.mp4" 10 $((i * 60)); done
clips=("$work"/c[0-4].mp4)
cpu() { /usr/bin/time -f "%U %S" "$@" 2>&1 >/dev/null | tail -1 | awk '{print $1 + $2}'; }
t0=$(now); smart_cpu=$(cpu "$reel" merge "${clips[@]}" --transition dissolve:1 --preset highest -o "$work/smart.mp4"); t1=$(now)
full_cpu=$(cpu "$reel" merge "${clips[@]}" --transition dissolve:1 --preset highest -o "$work/full.mp4" --no-smart); t2=$(now)
smart=$(echo "$t1 - $t0" | bc -l); full=$(echo "$t2 - $t1" | bc -l)
plan=$("$reel" merge "${clips[@]}" --transition dissolve:1 --preset highest -o "$work/plan.mp4" --explain | head -1)
printf '%-38s smart %8.3f s  full %8.3f s  ratio %5.2f  (%s)\n' "merge 5x10 s 1080p, 1 s dissolves" "$smart" "$full" \
  "$(echo "$smart / $full" | bc -l)" "${plan#smart render: }"
printf '%-38s smart %8.3f s  full %8.3f s  ratio %5.2f  (CPU time, user + system)\n' "" "$smart_cpu" "$full_cpu" \
  "$(echo "$smart_cpu / $full_cpu" | bc -l)"
# Frames outside the dissolves against their sources: clip i starts at output frame 270 i, its
# first 30 frames (i > 0) are the dissolve.
md5() { ffmpeg -nostdin -v error -i "$1" -map 0:v -f framemd5 - | grep -v '^#' | awk -F, '{gsub(/ /, "", $6); print $6}'; }
md5 "$work/smart.mp4" > "$work/out.md5"
for i in 0 1 2 3 4; do md5 "$work/c$i.mp4" > "$work/c$i.md5"; done
awk -v dir="$work" 'BEGIN {
  for (i = 0; i < 5; i++) { n = 0; f = dir "/c" i ".md5"; while ((getline line < f) > 0) src[i, n++] = line }
  f = dir "/out.md5"; k = 0; checked = 0; bad = 0
  while ((getline line < f) > 0) {
    i = int(k / 270); if (i > 4) i = 4; s = k - 270 * i
    if (i > 0 && s < 30) { k++; continue }           # inside a dissolve
    if (s >= 300) { i++; s = k - 270 * i }           # (not reached: each clip lasts 300 frames)
    checked++; if (line != src[i, s]) bad++; k++
  }
  printf "merge frames outside the dissolves: %d checked, %d differ from their source frame\n", checked, bad }'
rm -f "$work"/smart.mp4 "$work"/full.mp4 "$work"/plan.mp4
clip long.mp4 60 0
cat > "$work/title.json" <<JSON
{ "preset": "highest", "clips": [ { "file": "long.mp4" } ],
  "overlays": [ { "type": "text", "text": "A title", "fontSize": 96, "opacity": 0,
    "frame": { "x": 160, "y": 800, "width": 1200, "height": 160 },
    "animations": [ { "property": "opacity", "values": [1, 1], "begin": 20.5, "duration": 5 } ] } ] }
JSON
t0=$(now); "$reel" compose "$work/title.json" -o "$work/title.mp4" >/dev/null; t1=$(now)
plan=$("$reel" compose "$work/title.json" -o "$work/title-plan.mp4" --explain | head -1)
printf '%-38s smart %8.3f s  (%s)\n' "5 s title over a 60 s 1080p clip" "$(echo "$t1 - $t0" | bc -l)" "${plan#smart render: }"
