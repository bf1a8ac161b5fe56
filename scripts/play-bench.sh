#!/usr/bin/env bash
# make bench, playback: `reel play` beside ffplay, each in a window on a private Xvfb screen
# with its sound through a private PulseAudio daemon's null sink (the machine's own display
# and sound are never touched).
#   1. seeks and the first picture (`reel play --bench`, no window, no sound) on a 1080p30 file;
#   2. 60 s of a 1080p30 H.264 file and of a two-clip 720p30 composition with a dissolve:
#      pictures shown, dropped, CPU share, and play() to the first picture on screen; ffplay
#      on the same file (its own count of dropped frames, `fd=`);
#   3. sync as a viewer sees it: a flash-and-click clip (`reel-sync-meter make`) and a
#      composition of such clips with a dissolve and a push, played at rate 1 and 2, recorded
#      by one ffmpeg from the screen and the sink's monitor on one wall clock; each click
#      minus its flash, Reel beside ffplay measured the same way (ffplay plays the
#      composition's export; its rate 2 is setpts and atempo).
set -euo pipefail
reel=${1:?reel binary}; meter=${2:?reel-sync-meter binary}
seconds=${PLAY_BENCH_SECONDS:-60}
for tool in Xvfb pulseaudio pacat pactl ffplay python3; do
  command -v "$tool" >/dev/null || { echo "play bench: needs $tool (make deps)" >&2; exit 1; }
done
reel=$(cd "$(dirname "$reel")" && pwd)/$(basename "$reel")
meter=$(cd "$(dirname "$meter")" && pwd)/$(basename "$meter")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

display=
for d in 79 78 77 76 75; do [[ -e /tmp/.X$d-lock ]] || { display=$d; break; }; done
[[ -n $display ]] || { echo "play bench: no free X display in :75-:79" >&2; exit 1; }
start_servers() { # screen size
  Xvfb ":$display" -screen 0 "$1x24" -nolisten tcp -noreset >/dev/null 2>&1 & pids+=($!)
  mkdir -p "$work/pulse"
  HOME=$work/pulse XDG_RUNTIME_DIR=$work/pulse PULSE_RUNTIME_PATH=$work/pulse pulseaudio -n --daemonize=no \
    --exit-idle-time=-1 --disallow-exit --disable-shm=yes --use-pid-file=no \
    -L "module-null-sink sink_name=rig rate=48000 norewinds=1" \
    -L "module-native-protocol-unix auth-anonymous=1 socket=$work/pulse/native" >/dev/null 2>&1 & pids+=($!)
  export DISPLAY=:$display PULSE_SERVER=unix:$work/pulse/native
  for _ in $(seq 100); do pactl info >/dev/null 2>&1 && xdpyinfo >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "play bench: Xvfb or PulseAudio did not start" >&2; exit 1
}
stop_servers() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; pids=(); }

# The media: a 1080p30 H.264 file with sound, and two 720p30 clips for the composition.
ffmpeg -nostdin -v error -f lavfi -i "testsrc2=s=1920x1080:r=30" -f lavfi -i "sine=f=440:r=48000" -t "$seconds" \
  -c:v libx264 -preset veryfast -pix_fmt yuv420p -c:a aac "$work/f1080.mp4"
half=$(( seconds / 2 + 1 ))
for name in a b; do
  pattern=$([[ $name == a ]] && echo testsrc2 || echo smptehdbars)
  ffmpeg -nostdin -v error -f lavfi -i "$pattern=s=1280x720:r=30" -f lavfi -i "sine=f=330:r=48000" -t "$half" \
    -c:v libx264 -preset veryfast -pix_fmt yuv420p -c:a aac "$work/$name.mp4"
done
cat > "$work/dissolve.json" <<EOF
{ "clips": [ { "file": "a.mp4", "transition": { "type": "dissolve", "duration": 2 } }, { "file": "b.mp4" } ] }
EOF

# 1. Seeks and the first picture.
echo "playback seeks, 1920x1080 30 fps H.264 (keyframe every 250 frames), reel play --bench:"
"$reel" play "$work/f1080.mp4" --bench | sed 's/^/  /'

# 2. Playback for $seconds s in a window with sound.
start_servers 1920x1080
cpu() { awk '{print $1 + $2}' "$1"; }
for job in "file:f1080.mp4" "composition:dissolve.json"; do
  name=${job%%:*}; file=$work/${job#*:}
  stats=$( { /usr/bin/time -o "$work/time" -f "%U %S" "$reel" play "$file" --stats 2>/dev/null; } )
  printf 'playback %-11s reel   %s, CPU %.2f core\n' "$name" "$stats" "$(echo "$(cpu "$work/time") / $seconds" | bc -l)"
done
/usr/bin/time -o "$work/time" -f "%U %S" ffplay -autoexit -loglevel info -stats "$work/f1080.mp4" 2> "$work/ffplay.log" >/dev/null || true
drops=$(tr '\r' '\n' < "$work/ffplay.log" | grep -o 'fd= *[0-9]*' | tail -1 | tr -dc '0-9')
printf 'playback file        ffplay dropped %s, CPU %.2f core\n' "${drops:-?}" "$(echo "$(cpu "$work/time") / $seconds" | bc -l)"
stop_servers

# 3. Sync as a viewer sees it.
"$meter" make "$work/fc1.mp4" --fps 30 --seconds 10 --flash-frames 2 >/dev/null
"$meter" make "$work/fc2.mp4" --fps 30 --seconds 10 --flash-frames 4 >/dev/null
for r in 1 2; do
  cat > "$work/edit$r.json" <<EOF
{ "clips": [
  { "file": "fc$r.mp4", "range": { "start": 0, "end": 4 }, "transition": { "type": "dissolve", "duration": 0.4 } },
  { "file": "fc$r.mp4", "range": { "start": 0, "end": 4 }, "transition": { "type": "push", "duration": 0.4 } },
  { "file": "fc$r.mp4", "range": { "start": 0, "end": 4 } } ] }
EOF
  "$reel" compose "$work/edit$r.json" -o "$work/edit$r.mp4" >/dev/null 2>&1
done
start_servers 320x180
pacat -p --latency-msec=5 --raw --format=s16le --rate=48000 --channels=2 /dev/zero & pids+=($!)
sync_run() { # label player-command...
  local label=$1; shift
  local rec=$work/rec.mkv
  ffmpeg -nostdin -v error -y -thread_queue_size 1024 -use_wallclock_as_timestamps 1 -f x11grab -framerate 60 \
    -video_size 160x90 -i ":$display+80,45" -thread_queue_size 1024 -use_wallclock_as_timestamps 1 -f pulse \
    -fragment_size 1024 -i rig.monitor -copyts -c:v libx264 -preset ultrafast -qp 0 -c:a pcm_s16le "$rec" &
  local recorder=$!
  sleep 1
  "$@" >/dev/null 2>&1 || true
  sleep 0.7
  kill -INT "$recorder"; wait "$recorder" || true
  printf 'sync %-30s %s\n' "$label" "$(python3 "$here/play-sync-judge.py" "$rec")"
}
for r in 1 2; do
  sync_run "file rate $r: reel" "$reel" play "$work/fc$r.mp4" --rate "$r"
  sync_run "file rate $r: ffplay" ffplay -v error -autoexit -vf "setpts=PTS/$r" -af "atempo=$r" "$work/fc$r.mp4"
  sync_run "composition rate $r: reel" "$reel" play "$work/edit$r.json" --rate "$r"
  sync_run "composition rate $r: ffplay" ffplay -v error -autoexit -vf "setpts=PTS/$r" -af "atempo=$r" "$work/edit$r.mp4"
done
