#!/usr/bin/env bash
# make bench: issue 20's long chunked export, measured. A composition of CHUNK_BENCH_MINUTES
# (10) minutes is made from lavfi sources: clips of testsrc2 (a hue each) that flash white
# and click at k + 0.52 s of every second (the sync suite's flash and click), joined by
# 0.4 s dissolves and pushes, a title fading in and out for 5 s every minute, and a music
# bed. It is rendered once whole (--no-smart), with --jobs 2, and through Slurm on a
# single-node cluster this script starts (the recipe of Tests/ReelTestSupport/SlurmCluster.swift),
# then smart (#21): whole, and with --jobs 2, each chunk smart.
#
# For each output: frames (decoded, by ffprobe), the worst frame's PSNR against the single
# render (ffmpeg's psnr filter), flash against click at every event (reel-sync-meter judge:
# the sync suite's measure) and the largest change from the single render's offsets, where
# the index sits (moov before mdat), decoding errors (ffmpeg -v error), and the wall time
# with the load average before and after. Then the ratios: --jobs 2 against the single
# render and Slurm against --jobs 2 (issue 20 wants at most 1.10).
#
# Usage: scripts/chunk-bench.sh REEL REEL-SYNC-METER
# Environment: CHUNK_BENCH_MINUTES (10), CHUNK_BENCH_SIZE (640x360), CHUNK_BENCH_CHUNKS (8,
# for both --jobs 2 and Slurm), CHUNK_BENCH_RUNS (1: how many times --jobs 2 and Slurm run,
# alternated; the median is reported), CHUNK_BENCH_KEEP=1 keeps the work folder,
# CHUNK_BENCH_PAIRS_ONLY=1 runs only the --jobs 2 / Slurm pairs (no single or smart render,
# so no PSNR or sync against the single render: frames and wall ratios only).
# Slurm needs root, munge and Slurm's daemons (make deps); without them the Slurm rows are skipped.
set -euo pipefail
reel=$(realpath -m "${1:?reel binary}"); meter=$(realpath -m "${2:?reel-sync-meter binary}")
[[ -x $reel ]] || { echo "chunk-bench: $reel is not an executable reel" >&2; exit 1; }
minutes=${CHUNK_BENCH_MINUTES:-10}
size=${CHUNK_BENCH_SIZE:-640x360}
chunks=${CHUNK_BENCH_CHUNKS:-8}
runs=${CHUNK_BENCH_RUNS:-1}
pairs_only=${CHUNK_BENCH_PAIRS_ONLY:-0}
[[ $minutes =~ ^[0-9]+$ && $minutes -ge 1 ]] || { echo "chunk-bench: CHUNK_BENCH_MINUTES wants a whole number of minutes, not '$minutes'" >&2; exit 1; }
[[ $size =~ ^([0-9]+)x([0-9]+)$ ]] || { echo "chunk-bench: CHUNK_BENCH_SIZE wants WIDTHxHEIGHT, not '$size'" >&2; exit 1; }
width=${BASH_REMATCH[1]}; height=${BASH_REMATCH[2]}
for tool in ffmpeg ffprobe python3 bc /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "chunk-bench: needs $tool" >&2; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/reel-chunk-bench.XXXXXX")
cluster=""
cleanup() {
  if [[ -n $cluster ]]; then
    for pidfile in "$cluster/slurmd.pid" "$cluster/slurmctld.pid" "$cluster/munge/munged.pid"; do
      [[ -f $pidfile ]] || continue
      pid=$(cat "$pidfile"); [[ $pid =~ ^[0-9]+$ && $pid -gt 1 ]] || continue
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.02; done
      kill -9 "$pid" 2>/dev/null || true
    done
    rm -rf "$cluster"
  fi
  if [[ ${CHUNK_BENCH_KEEP:-0} == 1 ]]; then echo "chunk-bench: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
load() { cut -d' ' -f1 /proc/loadavg; }

# --- The sources: 30.4 s clips, so that with 0.4 s transitions each adds 30 s.
clips=$((minutes * 2))
clip_seconds=30.4
echo "chunk-bench: making $clips clips of $clip_seconds s at ${size}, 25 fps, and the music (load $(load))"
for i in $(seq 0 $((clips - 1))); do
  ffmpeg -nostdin -v error -y \
    -f lavfi -i "testsrc2=s=${size}:r=25:d=${clip_seconds},hue=h=$((i * 37 % 360)),drawbox=x=0:y=0:w=iw:h=ih:color=white:t=fill:enable='eq(mod(n\,25)\,13)'" \
    -f lavfi -i "aevalsrc=exprs='0.9*sin(2*PI*1000*t)*between(t-floor(t)\,0.52\,0.5299)+0.05*sin(2*PI*$((200 + 20 * i))*t)':s=48000:d=${clip_seconds}" \
    -c:v libx264 -preset veryfast -g 50 -pix_fmt yuv420p -c:a aac -b:a 128k -shortest "$work/clip$i.mp4"
done
total_seconds=$(echo "$clips * 30 + 0.4" | bc -l)
ffmpeg -nostdin -v error -y -f lavfi -i "sine=frequency=440:sample_rate=44100:duration=$((minutes * 60 + 1))" -c:a aac "$work/music.m4a"

# --- The spec: transitions alternate dissolve and push; a title every minute, kept off the
# flash detector's sampling grid (x = w/10 + k w/5, y = h/10 + k h/5).
python3 - "$work" "$clips" "$minutes" "$width" "$height" <<'EOF'
import json, sys
work, clips, minutes, width, height = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
entries = []
for i in range(clips):
    entry = {"file": f"clip{i}.mp4"}
    if i < clips - 1:
        entry["transition"] = {"type": "dissolve" if i % 2 == 0 else "push", "duration": 0.4}
    entries.append(entry)
overlays = []
x, w = width // 10 + width // 40, width // 5 - width // 20
y, h = height // 10 + height // 40, height // 5 - height // 20
for m in range(minutes):
    overlays.append({"type": "text", "text": f"Minute {m + 1}", "fontSize": max(8, h // 2), "color": "#ffffff", "opacity": 0,
                     "frame": {"x": x, "y": y, "width": w, "height": h},
                     "animations": [{"property": "opacity", "values": [0, 1, 1, 0], "begin": 60 * m + 10, "duration": 5}]})
spec = {"preset": "highest", "frameRate": 25, "clips": entries, "overlays": overlays,
        "audio": {"volume": 1, "music": {"file": "music.m4a", "volume": 0.3, "fadeIn": 2, "fadeOut": 3}}}
json.dump(spec, open(f"{work}/spec.json", "w"), indent=1)
# Every flash and click on the timeline: clip i starts at 30 i s and flashes at k + 0.52 s.
print(",".join(f"{30 * i + k + 0.52:.6f}" for i in range(clips) for k in range(30)), file=open(f"{work}/events", "w"))
EOF
events=$(cat "$work/events")

# --- A single-node Slurm cluster (as the tests start one), when this machine can.
slurm_ok=0
if [[ $(id -u) == 0 && -x /usr/sbin/slurmctld && -x /usr/sbin/slurmd && -x /usr/sbin/munged && -x /usr/bin/sbatch && -f /etc/munge/munge.key ]]; then
  cluster=$(mktemp -d /tmp/reel-slurm-bench.XXXXXX)
  chmod 755 "$cluster"; mkdir -p "$cluster/munge" "$cluster/state" "$cluster/spool"
  chown munge:munge "$cluster/munge"; chmod 755 "$cluster/munge"
  node=$(hostname -s)
  read -r port1 port2 < <(python3 -c 'import socket
a, b = socket.socket(), socket.socket(); a.bind(("127.0.0.1", 0)); b.bind(("127.0.0.1", 0))
print(a.getsockname()[1], b.getsockname()[1])')
  cat > "$cluster/slurm.conf" <<EOF
ClusterName=reelbench
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port1
SlurmdPort=$port2
AuthType=auth/munge
AuthInfo=socket=$cluster/munge/munge.socket,cred_expire=10
StateSaveLocation=$cluster/state
SlurmdSpoolDir=$cluster/spool
SlurmctldPidFile=$cluster/slurmctld.pid
SlurmdPidFile=$cluster/slurmd.pid
SlurmctldLogFile=$cluster/slurmctld.log
SlurmdLogFile=$cluster/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerParameters=sched_min_interval=100000
ReturnToService=1
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
MinJobAge=600
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=bench Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF="$cluster/slurm.conf"
  started=$(date +%s.%N)
  runuser -u munge -- /usr/sbin/munged --socket="$cluster/munge/munge.socket" --pid-file="$cluster/munge/munged.pid" \
    --log-file="$cluster/munge/munged.log" --seed-file="$cluster/munge/munged.seed" --key-file=/etc/munge/munge.key </dev/null
  /usr/sbin/slurmctld -i -f "$SLURM_CONF" </dev/null
  /usr/sbin/slurmd -f "$SLURM_CONF" -N "$node" </dev/null
  for _ in $(seq 600); do sinfo -h -o %T 2>/dev/null | grep -q idle && { slurm_ok=1; break; }; sleep 0.05; done
  if [[ $slurm_ok == 1 ]]; then
    printf 'chunk-bench: Slurm node %s idle %.2f s after starting\n' "$node" "$(echo "$(date +%s.%N) - $started" | bc -l)"
  else
    echo "chunk-bench: the Slurm node never became idle; the Slurm rows are skipped" >&2
  fi
else
  echo "chunk-bench: Slurm needs root, munge and Slurm's daemons (make deps); the Slurm rows are skipped" >&2
fi

# --- The renders. Each: wall and CPU seconds (GNU time; a Slurm run's CPU is in its tasks, not here), load before and after.
declare -A wall cpu loads
render() { # NAME reel-arguments…
  local name=$1; shift
  local before; before=$(load)
  /usr/bin/time -f "%e %U %S" -o "$work/$name.time" "$reel" compose "$work/spec.json" -o "$work/$name.mp4" "$@" \
    >"$work/$name.out" 2>"$work/$name.err" || { echo "chunk-bench: $name failed: $(tail -1 "$work/$name.err")" >&2; exit 1; }
  wall[$name]=$(awk '{print $1}' "$work/$name.time"); cpu[$name]=$(awk '{print $2 + $3}' "$work/$name.time")
  loads[$name]="$before-$(load)"
  printf 'chunk-bench: %-12s %8.1f s wall, %8.1f CPU-s here (load %s)\n' "$name" "${wall[$name]}" "${cpu[$name]}" "${loads[$name]}"
}
# Where a chunked run's wall time went, from its state files (each part's `done SECONDS`
# line is written when the part ends) and the run's own start and end: the start to the
# first part, the last part to the output, and the hand-overs between parts. These do not
# depend on the CPU share the parts got; the wall ratio does (on a loaded machine with the
# kernel's autogroup scheduling, each Slurm task is a session of its own and gets a share of
# its own, while --jobs 2's processes share one).
timeline() { # NAME
  python3 - "$work/$1.time" "$work/$1-job/state" "$1" <<'EOF'
import glob, os, sys
timing, state, name = sys.argv[1:4]
wall = float(open(timing).read().split()[0]); end = os.path.getmtime(timing); start = end - wall
parts = {}
for path in glob.glob(f"{state}/*"):
    words = open(path).read().split()
    if os.path.basename(path)[0] != "." and words and words[0] == "done":
        parts[os.path.basename(path)] = (os.path.getmtime(path) - float(words[1]), os.path.getmtime(path))
renders = sorted(v for k, v in parts.items() if k != "join")
if not renders: sys.exit(0)
last = max(e for _, e in renders)
gaps = [s - max(e for _, e in renders[:i] if e <= s + 0.001) for i, (s, _) in enumerate(renders) if i >= 2 and any(e <= s + 0.001 for _, e in renders[:i])]
sound = parts.get("sound")
print(f"chunk-bench: {name:<8} start to the first part {renders[0][0] - start:.2f} s; the last part to the output {end - last:.2f} s"
      + (f" (the join {parts['join'][1] - parts['join'][0]:.2f} s of it, done by a worker)" if "join" in parts else " (the join in the waiting reel)")
      + f"; {len(gaps)} hand-overs {sum(gaps):.2f} s" + (f"; the sound {sound[1] - sound[0]:.1f} s" if sound else ""))
EOF
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

[[ $pairs_only == 1 ]] || render single --no-smart
jobs_walls=""; slurm_walls=""
for run in $(seq "$runs"); do
  render "jobs2-$run" --no-smart --jobs 2 --chunks "$chunks" --job-dir "$work/jobs2-$run-job"
  jobs_walls+="${wall[jobs2-$run]}"$'\n'
  if [[ $slurm_ok == 1 ]]; then
    render "slurm-$run" --no-smart --slurm --chunks "$chunks" --job-dir "$work/slurm-$run-job"
    slurm_walls+="${wall[slurm-$run]}"$'\n'
    printf 'chunk-bench: pair %d: --slurm / --jobs 2 %.3f (%.1f s against %.1f s; load %s and %s)\n' "$run" \
      "$(echo "${wall[slurm-$run]} / ${wall[jobs2-$run]}" | bc -l)" "${wall[slurm-$run]}" "${wall[jobs2-$run]}" "${loads[slurm-$run]}" "${loads[jobs2-$run]}"
    timeline "jobs2-$run"; timeline "slurm-$run"
  fi
done
if [[ $pairs_only == 1 ]]; then
  frames() { ffprobe -v error -select_streams v:0 -count_frames -show_entries stream=nb_read_frames -of csv=p=0 "$1"; }
  for run in $(seq "$runs"); do
    for name in "jobs2-$run" "slurm-$run"; do
      [[ -f $work/$name.mp4 ]] && printf '%-12s frames %s\n' "$name" "$(frames "$work/$name.mp4")"
    done
  done
  if [[ $slurm_ok == 1 ]]; then
    jobs_median=$(echo -n "$jobs_walls" | median); slurm_median=$(echo -n "$slurm_walls" | median)
    printf 'ratio --slurm / --jobs 2      %5.2f  (%.1f s against %.1f s, medians of %d alternated pairs)\n' \
      "$(echo "$slurm_median / $jobs_median" | bc -l)" "$slurm_median" "$jobs_median" "$runs"
  fi
  exit 0
fi
render smart --explain
render smart-jobs2 --jobs 2 --chunks "$chunks" --job-dir "$work/smart-jobs2-job" --explain

# --- The checks.
[[ -x $meter ]] || { echo "chunk-bench: $meter is not an executable reel-sync-meter (swift build -c release --product reel-sync-meter)" >&2; exit 1; }
frames() { ffprobe -v error -select_streams v:0 -count_frames -show_entries stream=nb_read_frames -of csv=p=0 "$1"; }
min_psnr() { # A B: the worst frame's psnr_avg of B against A, and how many frames were compared
  local log="$work/psnr-$RANDOM.log"
  ffmpeg -nostdin -v error -i "$1" -i "$2" -lavfi "[0:v][1:v]psnr=stats_file=$log" -f null - >/dev/null
  awk '{for (i = 1; i <= NF; i++) if ($i ~ /^psnr_avg:/) { v = substr($i, 10); n++; if (v == "inf") v = 1000; if (min == "" || v + 0 < min) min = v + 0 } }
       END { printf "%.2f dB over %d frames", min, n }' "$log"
}
moov() { # where moov and mdat start
  python3 - "$1" <<'EOF'
import struct, sys
f = open(sys.argv[1], "rb"); at = {}; pos = 0
while True:
    head = f.read(8)
    if len(head) < 8: break
    size, kind = struct.unpack(">I4s", head)
    if size == 1: size = struct.unpack(">Q", f.read(8))[0]
    at.setdefault(kind.decode("latin-1"), pos)
    if size == 0: break
    pos += size; f.seek(pos)
m, d = at.get("moov", -1), at.get("mdat", -1)
print(f"moov at {m}, mdat at {d}: " + ("moov first" if 0 <= m < d else "MOOV NOT FIRST"))
EOF
}
decode_errors() { local e; e=$(ffmpeg -nostdin -v error -i "$1" -f null - 2>&1 | wc -l); echo "$e decoding errors"; }

echo
echo "chunk-bench: ${minutes} min composition (${total_seconds} s, $clips clips, $((clips - 1)) transitions, $minutes titles, music), ${size}, preset highest, $chunks chunks"
single_frames=$(frames "$work/single.mp4")
outputs=(single)
for run in $(seq "$runs"); do outputs+=("jobs2-$run"); [[ $slurm_ok == 1 ]] && outputs+=("slurm-$run"); done
outputs+=(smart smart-jobs2)
for name in "${outputs[@]}"; do
  file="$work/$name.mp4"
  "$meter" judge "$file" --events "$events" --duration "$total_seconds" --offsets > "$work/$name.judge"
  verdict=$(head -1 "$work/$name.judge"); pass=$(sed -n 2p "$work/$name.judge")
  drift=$(python3 - "$work/single.judge" "$work/$name.judge" "$work/events" "$work/$name-job/job.json" <<'EOF'
import json, os, sys
def offsets(path):
    for line in open(path):
        if line.startswith("offsets:"):
            return [float(v) for v in line[len("offsets:"):].split(",") if v.strip()]
    return None
a, b = offsets(sys.argv[1]), offsets(sys.argv[2])
events = [float(v) for v in open(sys.argv[3]).read().strip().split(",")]
if a is None or b is None or len(a) != len(b) or len(b) != len(events):
    print("offsets: n/a (events lost)")
    sys.exit(0)
text = f"largest change from the single render's offsets {max(abs(x - y) for x, y in zip(a, b)):.3f} ms over {len(b)} events"
if os.path.exists(sys.argv[4]):
    cuts = sorted(c["start"]["seconds"] for c in json.load(open(sys.argv[4]))["chunks"])[1:]
    near = [i for i, t in enumerate(events) if any(abs(t - c) <= 1.0 for c in cuts)]
    if near:
        text += (f"; at the {len(cuts)} joins ({len(near)} events within 1 s of a cut): worst offset "
                 f"{max(abs(b[i]) for i in near):.3f} ms, largest change {max(abs(a[i] - b[i]) for i in near):.3f} ms")
print(text)
EOF
)
  printf '%-12s frames %s (single %s); worst PSNR %s; %s; %s\n' "$name" "$(frames "$file")" "$single_frames" \
    "$([[ $name == single ]] && echo "-" || min_psnr "$work/single.mp4" "$file")" "$(moov "$file")" "$(decode_errors "$file")"
  printf '%-12s sync: %s %s\n%-12s %s\n' "" "$verdict" "$pass" "" "$drift"
done
grep -h "^smart render:" "$work/smart.out" "$work/smart-jobs2.out" 2>/dev/null | sed 's/^/smart plan: /' || true
[[ -f $work/smart.mp4 && -f $work/smart-jobs2.mp4 ]] && printf 'smart --jobs 2 against smart single: worst PSNR %s\n' "$(min_psnr "$work/smart.mp4" "$work/smart-jobs2.mp4")"

echo
jobs_median=$(echo -n "$jobs_walls" | median)
printf 'ratio --jobs 2 / single       %5.2f  (%.1f s against %.1f s; load %s and %s)\n' \
  "$(echo "$jobs_median / ${wall[single]}" | bc -l)" "$jobs_median" "${wall[single]}" "${loads[jobs2-1]}" "${loads[single]}"
if [[ $slurm_ok == 1 ]]; then
  slurm_median=$(echo -n "$slurm_walls" | median)
  printf 'ratio --slurm / --jobs 2      %5.2f  (%.1f s against %.1f s, median of %d alternated; loads:' \
    "$(echo "$slurm_median / $jobs_median" | bc -l)" "$slurm_median" "$jobs_median" "$runs"
  for run in $(seq "$runs"); do printf ' jobs2 %s, slurm %s;' "${loads[jobs2-$run]}" "${loads[slurm-$run]}"; done
  printf ')\n'
fi
printf 'ratio smart --jobs 2 / smart  %5.2f  (%.1f s against %.1f s; load %s and %s)\n' \
  "$(echo "${wall[smart-jobs2]} / ${wall[smart]}" | bc -l)" "${wall[smart-jobs2]}" "${wall[smart]}" "${loads[smart-jobs2]}" "${loads[smart]}"
