#!/usr/bin/env bash
# make bench: Reel beside its outside reference on the same work, in one run.
# Each job runs 5 times; the median wall time is reported with the ratio.
set -euo pipefail
reel=${1:?reel binary}; clips=${2:?clip dir}; meter=${3:-}  # reel-sync-meter, for the pitch-kept speed rows
# Absolute, for the concat list: ffmpeg reads the paths in it relative to the list's folder.
clips=$(cd "$clips" 2>/dev/null && pwd) || { echo "bench: $2 is absent; the benchmarks run on the seed clips" >&2; exit 1; }
runs=${BENCH_RUNS:-5}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# A job that fails stops the bench: a failed reference would be timed as a fast one.
seconds() {
  local t0 t1; t0=$(date +%s.%N)
  "$@" >/dev/null 2>&1 || { echo "bench: failed: $*" >&2; return 1; }
  t1=$(date +%s.%N); echo "$t1 - $t0" | bc -l
}
measure() { for _ in $(seq "$runs"); do seconds "$@"; done | median; }
# Wall and CPU (user + sys) seconds of one run: "wall cpu".
timed() {
  local out; out=$(mktemp)
  /usr/bin/time -f "%e %U %S" -o "$out" "$@" >/dev/null 2>&1 || { rm -f "$out"; echo "bench: failed: $*" >&2; return 1; }
  awk '{print $1, $2 + $3}' "$out"; rm -f "$out"
}
# CPU (user + sys) seconds of one run.
cpu() { /usr/bin/time -f "%U %S" "$@" 2>&1 >/dev/null | tail -1 | awk '{print $1 + $2}'; }
# Reel's job and its reference, run alternately (reel, reference, reel, ...) so that a change
# in the machine's load falls on both alike; the median wall and CPU seconds of each, then the
# load average over those runs. Usage: pair -- REEL COMMAND -- REFERENCE COMMAND; sets
# pair_reel_wall, pair_reel_cpu, pair_ref_wall, pair_ref_cpu, pair_load.
pair() {
  local -a a=() b=(); shift; while [[ $1 != -- ]]; do a+=("$1"); shift; done; shift; b=("$@")
  local ra="" rb="" loads="" t
  for _ in $(seq "$runs"); do
    loads+="$(cut -d' ' -f1 /proc/loadavg) "
    t=$(timed "${a[@]}") || return 1; ra+="$t"$'\n'
    t=$(timed "${b[@]}") || return 1; rb+="$t"$'\n'
  done
  pair_reel_wall=$(echo -n "$ra" | awk '{print $1}' | median); pair_reel_cpu=$(echo -n "$ra" | awk '{print $2}' | median)
  pair_ref_wall=$(echo -n "$rb" | awk '{print $1}' | median); pair_ref_cpu=$(echo -n "$rb" | awk '{print $2}' | median)
  pair_load=$(echo "$loads" | tr ' ' '\n' | grep . | median)
}
# report_pair NAME REFERENCE_NAME: the wall row, then the CPU seconds and the load beside it.
report_pair() {
  report "$1" "$pair_reel_wall" "$2" "$pair_ref_wall"
  printf '%-38s reel %8.3f CPU-s %-5s %8.3f CPU-s ratio %5.2f  (median load %s, %d runs alternated)\n' \
    "  cpu" "$pair_reel_cpu" "" "$pair_ref_cpu" "$(echo "$pair_reel_cpu / $pair_ref_cpu" | bc -l)" "$pair_load" "$runs"
}
report() { # name reel_value reference_name reference_value [unit]
  local unit=${5:-s}
  printf '%-38s reel %8.3f %-2s  %-8s %8.3f %-2s  ratio %5.2f\n' "$1" "$2" "$unit" "$3" "$4" "$unit" "$(echo "$2 / $4" | bc -l)"
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
pair -- "$reel" transcode "$clip" -o "$work/reel.mp4" --preset medium --crf 23 \
  -- ffmpeg -nostdin -y -v error -i "$clip" -c:v libx264 -preset medium -crf 23 -pix_fmt yuv420p -c:a aac -movflags +faststart "$work/ffmpeg.mp4"
report_pair "transcode 01_nebula x264 medium 23" "ffmpeg"

r=$(measure "$reel" thumbnail "$clip" --at 7.5 -o "$work/thumb.png")
f=$(measure ffmpeg -nostdin -y -v error -ss 7.5 -i "$clip" -frames:v 1 "$work/thumb-ffmpeg.png")
report "thumbnail at 7.5 s" "$r" "ffmpeg" "$f"

# Filters: Reel's per-frame cost at 1920x1080 (in-process, the median of three passes of 48 frames read in turn from
# 16, more than the L3 holds, as fresh frames from a decoder are) beside a
# plain copy of the frame and FFmpeg's closest filter (its cost over a format-only baseline).
bench=$("$reel" filters --bench)
echo "$bench" | awk '{printf "filter %-8s %-20s %8.3f ms  %s of copy\n", $1, $2, $3, ($5 == "" ? "-" : $5)}'
frames=100
awk -v n=33 'BEGIN { print "LUT_3D_SIZE " n; for (b = 0; b < n; b++) for (g = 0; g < n; g++) for (r = 0; r < n; r++) printf "%.6f %.6f %.6f\n", r/(n-1), g/(n-1), b/(n-1) }' > "$work/identity.cube"
ff() { ffmpeg -nostdin -v error -f lavfi -i "testsrc2=s=1920x1080:r=25" -frames:v $frames -vf "$1" -f null -; }
per_frame() { echo "($1 - $2) * 1000 / $frames" | bc -l; }
rgba_base=$(measure ff format=rgba)
yuv_base=$(measure ff format=yuv420p)
mixer=$(per_frame "$(measure ff "format=rgba,colorchannelmixer=.393:.769:.189:0:.349:.686:.168:0:.272:.534:.131")" "$rgba_base")
grey=$(per_frame "$(measure ff "format=yuv420p,hue=s=0")" "$yuv_base")
lut=$(per_frame "$(measure ff "format=rgba,lut3d=file=$work/identity.cube")" "$rgba_base")
reel_of() { echo "$bench" | awk -v f="$1" -v n="$2" '$1 == f && $2 == n {print $3}'; }
report "SepiaTone rgba vs colorchannelmixer" "$(reel_of rgba SepiaTone)" "ffmpeg" "$mixer" ms
report "Mono yuv420p vs hue=s=0" "$(reel_of yuv420p PhotoEffectMono)" "ffmpeg" "$grey" ms
report "Chrome yuv420p vs colorchannelmixer" "$(reel_of yuv420p PhotoEffectChrome)" "ffmpeg" "$mixer" ms
report "ColorCube rgba vs lut3d" "$(reel_of rgba ColorCube)" "ffmpeg" "$lut" ms

# Composition: the seed composition (Reel's also mixes the audio and draws a contact sheet).
shared_bench=$(cd "$clips/../.." 2>/dev/null && pwd)/bench
if [[ -x "$shared_bench/ffmpeg-seed-composition.sh" || -f "$shared_bench/ffmpeg-seed-composition.sh" ]]; then
  pair -- "$reel" demo --clips "$clips" -o "$work/demo.mp4" -- bash "$shared_bench/ffmpeg-seed-composition.sh" "$clips" "$work/ffmpeg-demo.mp4"
  report_pair "seed composition 640x360" "ffmpeg"
  f=$pair_ref_wall
  # The floor under any render of it here: the CPU time of the work the output cannot be
  # made without, spread perfectly over every core. Decoding the five clips and scaling them
  # to 640x360 (ffmpeg's default scaler, as the reference uses), and encoding the reference's
  # 42 s result with the same settings from raw pictures (so no decoding is counted twice);
  # transitions, the sticker, muxing and Reel's sound are left out. A target under this
  # ratio needs an encoder or a decoder that does less work than the reference's.
  decode=0; scaled=0
  for f5 in "${seeds[@]}"; do
    decode=$(echo "$decode + $(cpu ffmpeg -nostdin -v error -i "$f5" -map 0:v -f null -)" | bc -l)
    scaled=$(echo "$scaled + $(cpu ffmpeg -nostdin -v error -i "$f5" -map 0:v -vf scale=640:360 -f null -)" | bc -l)
  done
  ffmpeg -nostdin -y -v error -i "$work/ffmpeg-demo.mp4" -f yuv4mpegpipe "$work/demo.y4m"
  encode=$(cpu ffmpeg -nostdin -v error -i "$work/demo.y4m" -c:v libx264 -preset medium -crf 23 -f null -)
  rm -f "$work/demo.y4m"
  cores=$(nproc)
  floor=$(echo "($decode + $encode) / $cores" | bc -l)
  printf 'seed composition floor: decode %.1f CPU-s + encode %.1f CPU-s over %d cores = %.2f s, ratio %.2f to ffmpeg\n' \
    "$decode" "$encode" "$cores" "$floor" "$(echo "$floor / $f" | bc -l)"
  floor=$(echo "($scaled + $encode) / $cores" | bc -l)
  printf 'seed composition floor with the scaling: decode and scale %.1f CPU-s + encode %.1f CPU-s = %.2f s, ratio %.2f to ffmpeg\n' \
    "$scaled" "$encode" "$floor" "$(echo "$floor / $f" | bc -l)"
  # The same composition through `reel compose` and its spec (docs/composition-spec.md): the
  # export alone, without the demo's contact sheet and timeline (the sound is still mixed).
  cat > "$work/seed.json" <<SPEC
{ "preset": "640x480", "frameRate": 25,
  "clips": [
    { "file": "$clips/01_nebula.mp4", "transition": { "type": "dissolve", "duration": 2 } },
    { "file": "$clips/02_blackhole.mp4", "transition": { "type": "push", "duration": 2, "direction": "left" } },
    { "file": "$clips/03_nebula.mp4", "transition": { "type": "dissolve", "duration": 2 } },
    { "file": "$clips/04_quasar.mp4", "transition": { "type": "push", "duration": 2 } },
    { "file": "$clips/05_blackhole.mp4" } ],
  "overlays": [ { "type": "color", "color": "#ffff00", "opacity": 0, "frame": { "x": 0, "y": 0, "width": 40, "height": 40 },
    "animations": [ { "property": "opacity", "values": [0, 1, 1, 0], "keyTimes": [0, 0.25, 0.75, 1],
                      "begin": 3, "duration": 5, "removedOnCompletion": false } ] } ] }
SPEC
  pair -- "$reel" compose "$work/seed.json" -o "$work/compose.mp4" -- bash "$shared_bench/ffmpeg-seed-composition.sh" "$clips" "$work/ffmpeg-demo.mp4"
  report_pair "seed composition, reel compose" "ffmpeg"
fi

# The compositor alone: each kind of draw at 1920x1080, one core beside all of them.
"$reel" compose --bench

# A chunked export (docs/scaling.md): the five seed clips merged with 1 s dissolves at
# 1280x720, --jobs 2 (4 chunks in two reel processes, the sound rendered once, a stream-copy
# join) against one render of the same merge.
pair -- "$reel" merge "${seeds[@]}" --transition dissolve:1 --preset 1280x720 --jobs 2 -o "$work/jobs2.mp4" \
  -- "$reel" merge "${seeds[@]}" --transition dissolve:1 --preset 1280x720 -o "$work/single.mp4"
report_pair "merge 5 seed clips 720p --jobs 2" "single"

# Passthrough merge of the four seed clips that share coding parameters (04_quasar is
# 1276 wide: Reel refuses to copy it; the ffmpeg concat demuxer would mislabel it).
four=("$clips/01_nebula.mp4" "$clips/02_blackhole.mp4" "$clips/03_nebula.mp4" "$clips/05_blackhole.mp4")
list="$work/concat.txt"; : > "$list"
for f in "${four[@]}"; do echo "file '$f'" >> "$list"; done
r=$(measure "$reel" merge "${four[@]}" --preset passthrough -o "$work/pass.mp4")
f=$(measure ffmpeg -nostdin -y -v error -f concat -safe 0 -i "$list" -map 0:v:0 -c copy -movflags +faststart "$work/concat.mp4")
c=$(measure sh -c 'cat "$@" > "$0"' "$work/cp.bin" "${four[@]}")
report "passthrough merge of 4 seed clips" "$r" "ffmpeg" "$f"
report "passthrough merge vs cp of the bytes" "$r" "cp" "$c"
# Reel also mixes the clips' sound and encodes it once as AAC (docs/porting-from-avfoundation.md
# says why it is not copied), which the video-only reference does not.
# The same job without sound: the two seed clips that have none.
silent=("$clips/03_nebula.mp4" "$clips/05_blackhole.mp4")
: > "$list"; for f in "${silent[@]}"; do echo "file '$f'" >> "$list"; done
r=$(measure "$reel" merge "${silent[@]}" --preset passthrough -o "$work/pass-silent.mp4")
f=$(measure ffmpeg -nostdin -y -v error -f concat -safe 0 -i "$list" -map 0:v:0 -c copy -movflags +faststart "$work/concat-silent.mp4")
report "passthrough merge, 2 clips, no sound" "$r" "ffmpeg" "$f"
# The floor under that: starting a process that links Debian's FFmpeg (its libraries pull
# in over a hundred more), before any work; ffmpeg pays it too.
s=$(measure "$reel" --version)
v=$(measure ffmpeg -version)
report "start alone (reel --version) vs cp" "$s" "cp" "$c"
report "start alone vs ffmpeg -version" "$s" "ffmpeg" "$v"

# Speed changes of one clip, against the seed references (libx264 medium, CRF 23, AAC).
if [[ -f "$shared_bench/ffmpeg-speed.sh" ]]; then
  # The same work as the reference: the clip's own size (1280x720) at CRF 23 (--preset
  # 1280x720; the default, highest, is CRF 18, which costs x264 about a third more).
  pair -- "$reel" speed "$clip" --rate 5 --preset 1280x720 -o "$work/speed-fast.mp4" \
    -- bash "$shared_bench/ffmpeg-speed.sh" "$clip" fast "$work/ffmpeg-fast.mp4"
  report_pair "speed fast (5) of 01_nebula" "ffmpeg"
  # Its floor: decoding only the pictures a fast-forward needs (every reference picture; the
  # shown non-reference ones are few) and encoding the 51 shown pictures from raw pictures,
  # spread perfectly over every core; the sound left out.
  f=$pair_ref_wall
  decode=$(cpu ffmpeg -nostdin -v error -skip_frame noref -i "$clip" -map 0:v -f null -)
  ffmpeg -nostdin -y -v error -i "$work/speed-fast.mp4" -map 0:v -f yuv4mpegpipe "$work/fast.y4m"
  encode=$(cpu ffmpeg -nostdin -v error -i "$work/fast.y4m" -c:v libx264 -preset medium -crf 23 -f null -)
  rm -f "$work/fast.y4m"
  floor=$(echo "($decode + $encode) / $(nproc)" | bc -l)
  printf 'speed fast (5) floor: decode %.1f CPU-s + encode %.1f CPU-s over %d cores = %.2f s, ratio %.2f to ffmpeg\n' \
    "$decode" "$encode" "$(nproc)" "$floor" "$(echo "$floor / $f" | bc -l)"
  # One run: the slow job takes tens of seconds.
  r=$(seconds "$reel" speed "$clip" --rate 0.25 -o "$work/speed-slow.mp4")
  f=$(seconds bash "$shared_bench/ffmpeg-speed.sh" "$clip" slow "$work/ffmpeg-slow.mp4")
  report "speed slow (0.25) of 01_nebula" "$r" "ffmpeg" "$f"
fi

# Capture: the virtual camera with a live filter, recorded to H.264 in real time, 10 s at
# each size. Reel reports its pipeline's time per frame, its drops and its CPU; the
# reference is ffmpeg encoding a test pattern of the same size at the same pace (-re) with
# the same encoder settings as a recording (libx264 veryfast).
for size in 1280x720 1920x1080; do
  stats=$("$reel" record --preset "$size" --fps 30 --filter PhotoEffectChrome --max-duration 10 -o "$work/rec-$size.mp4" --stats 2>/dev/null)
  reel_cpu=$(echo "$stats" | sed 's/.*"cpuSeconds": \([0-9.]*\).*/\1/')
  ff_cpu=$( { /usr/bin/time -f "%U %S" ffmpeg -nostdin -y -v error -re -f lavfi -i "testsrc2=s=$size:r=30" -t 10 \
              -c:v libx264 -preset veryfast -pix_fmt yuv420p "$work/ffrec-$size.mp4" ; } 2>&1 | awk '{print $1 + $2}')
  echo "capture $size@30 with a filter: $stats"
  report "capture $size@30 CPU for 10 s" "$reel_cpu" "ffmpeg" "$ff_cpu"
done

# Live stabilization: its CPU time a 1080p frame alone (`reel stabilize --bench`, thread CPU
# time), then on the shaking camera (virtual:handheld-camera), 1080p30 with a filter, 10 s per mode: its cost per frame is the process's CPU time over the same recording
# unsteadied, per frame (the estimator, the 10 % crop turned and moved, and the scale back; CPU time, so a
# busy machine's waits do not count), beside the pipeline's wall time per frame; the CPU share is the
# whole recording process's (cores = CPU seconds over wall seconds). After the fact,
# `reel stabilize` beside ffmpeg's two-pass libvidstab (vidstabdetect, vidstabtransform) on
# the unsteadied recording, the same encoder settings.
"$reel" stabilize --bench
stab_field() { echo "$1" | sed "s/.*\"$2\": \([0-9.]*\).*/\1/"; }
stab_off=$("$reel" record --device virtual:handheld-camera --mic none --preset 1920x1080 --fps 30 --filter PhotoEffectTonal \
  --stabilization off --max-duration 10 -o "$work/stab-off.mp4" --stats 2>/dev/null)
echo "stabilization off 1080p30 with a filter: $stab_off"
for mode in standard cinematic; do
  stats=$("$reel" record --device virtual:handheld-camera --mic none --preset 1920x1080 --fps 30 --filter PhotoEffectTonal \
    --stabilization "$mode" --max-duration 10 -o "$work/stab-$mode.mp4" --stats 2>/dev/null)
  printf 'stabilization %-9s 1080p30: %.2f CPU-ms a frame over off, pipeline %s against %s ms a frame, %s cores for the filtered recording, %s dropped\n' \
    "$mode" "$(echo "($(stab_field "$stats" cpuSeconds) - $(stab_field "$stab_off" cpuSeconds)) * 1000 / $(stab_field "$stats" frames)" | bc -l)" \
    "$(stab_field "$stats" frameMilliseconds)" "$(stab_field "$stab_off" frameMilliseconds)" \
    "$(stab_field "$stats" cores)" "$(stab_field "$stats" dropped)"
done
r=$(seconds "$reel" stabilize "$work/stab-off.mp4" -o "$work/stab-after.mp4" --preset veryfast)
f=$(seconds bash -c "ffmpeg -nostdin -y -v error -i '$work/stab-off.mp4' -vf vidstabdetect=result='$work/stab.trf' -f null - &&
  ffmpeg -nostdin -y -v error -i '$work/stab-off.mp4' -vf vidstabtransform=input='$work/stab.trf':zoom=10 \
    -c:v libx264 -preset veryfast '$work/stab-ffmpeg.mp4'")
report "stabilize 10 s of 1080p30 after the fact" "$r" "vidstab" "$f"
rm -f "$work"/stab-*

# Smart render beside the full re-encode of the same merge (and a title's re-encoded part), one run each.
"$(dirname "$0")/smart-bench.sh" "$reel"

# Pitch-kept speed changes, Reel beside the ffmpeg CLI (setpts and atempo, libx264
# ultrafast) on the sync suite's flash-and-click clips (`reel-sync-meter make`: a flash and a
# 10 ms click each second; at a speed-up by r the flash lasts r frames, so the output's frame
# grid can show it), judged by `reel-sync-meter judge` (the suite's SyncMeter, from decoded
# frames and samples): click-flash offsets, the flash's placement against where the picture
# puts it, events lost (flashes, clicks), the picture's length and where the sound ends.
if [[ -n $meter ]]; then
  atempo_chain() { awk -v r="$1" 'BEGIN { s = ""; while (r < 0.5) { s = s "atempo=0.5,"; r /= 0.5 } printf "%satempo=%.10g", s, r }'; }
  for rate in 0.0625 0.25 0.5 2 3 5 16; do
    if [[ $rate == 0.0625 ]]; then seconds=4; else seconds=20; fi
    flash=$(awk -v r="$rate" 'BEGIN { f = int(r); if (f < r) f++; print (f < 1 ? 1 : f) }')
    ev=$("$meter" make "$work/fc.mp4" --seconds "$seconds" --flash-frames "$flash")
    e=$(awk -v e="$ev" -v r="$rate" 'BEGIN { k = split(e, a, ","); out = "";
      for (j = 1; j <= k; j++) out = out (j > 1 ? "," : "") sprintf("%.6f", a[j] / r); print out }')
    d=$(awk -v s="$seconds" -v r="$rate" 'BEGIN { printf "%.6f", s / r }')
    judge=(--events "$e" --duration "$d" --frame-tolerant)
    [[ $(awk -v r="$rate" 'BEGIN { print (r > 2) }') == 1 ]] && judge+=(--loss-allowed)
    "$reel" speed "$work/fc.mp4" --rate "$rate" --preset 640x480 -o "$work/sync-reel-$rate.mp4" >/dev/null 2>&1
    ffmpeg -nostdin -y -v error -i "$work/fc.mp4" -filter:v "setpts=PTS/$rate" -filter:a "$(atempo_chain "$rate")" \
      -c:v libx264 -preset ultrafast -pix_fmt yuv420p -c:a aac "$work/sync-ffmpeg-$rate.mp4"
    printf 'pitch-kept speed %-6s reel   %s\n' "$rate" "$("$meter" judge "$work/sync-reel-$rate.mp4" "${judge[@]}" | tr '\n' ' ')"
    if [[ $rate == 0.* ]]; then # the default slow-down: frames copied with stretched timestamps
      "$reel" speed "$work/fc.mp4" --rate "$rate" -o "$work/sync-copy-$rate.mp4" >/dev/null 2>&1
      printf 'pitch-kept speed %-6s copy   %s\n' "$rate" "$("$meter" judge "$work/sync-copy-$rate.mp4" "${judge[@]}" | tr '\n' ' ')"
    fi
    printf 'pitch-kept speed %-6s atempo %s\n' "$rate" "$("$meter" judge "$work/sync-ffmpeg-$rate.mp4" "${judge[@]}" | tr '\n' ' ')"
    rm -f "$work/fc.mp4" "$work"/sync-*
  done
else
  echo "bench: the pitch-kept speed rows need reel-sync-meter (make bench builds it)" >&2
fi
