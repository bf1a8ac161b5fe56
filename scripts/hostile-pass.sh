#!/bin/bash
# Whole-corpus pass (issue 16): every command over every file of Tests/Corpus/files, a FIFO,
# the fuzz seeds (specs and .cube files) and numeric extremes on the command line (the capture
# commands too, on the virtual camera, with stdin closed), with the release binary. Prints each
# crash, hang, leftover or temporary file and multi-line failure, then the counts.
# Usage: scripts/hostile-pass.sh (R=path/to/reel to choose the binary).
cd "$(dirname "$0")/.."; ROOT=$PWD
R=${R:-$ROOT/.build/release/reel}
C=$ROOT/Tests/Corpus/files
W=$(mktemp -d /tmp/reel-pass.XXXX)
mkdir -p $W/src; cp $C/* $W/src/; mkfifo $W/src/fifo.mp4
for s in $ROOT/Fuzz/Seeds/spec/*.json; do sed "s#\"file\":\"a\"#\"file\":\"$W/src/valid.mp4\"#g" $s > $W/src/spec-$(basename $s); done
cp $ROOT/Fuzz/Seeds/cube/*.cube $W/src/
crash=0; hang=0; left=0; multi=0; runs=0; ok=0; refused=0
run() { # label, outdir, args...
  local label=$1 out=$2; shift 2; mkdir -p $out; runs=$((runs+1))
  timeout -s KILL 60 "$R" "$@" < /dev/null > $out/.stdout 2> $out/.stderr; local st=$?
  if [ $st -eq 137 ]; then hang=$((hang+1)); echo "HANG $label"; fi
  if [ $st -gt 128 ] && [ $st -ne 137 ]; then crash=$((crash+1)); echo "CRASH($st) $label: $(head -c 200 $out/.stderr)"; fi
  if [ $st -eq 0 ]; then ok=$((ok+1)); else refused=$((refused+1)); fi
  if [ $st -ne 0 ] && [ $st -le 128 ]; then
    n=$(grep -c . $out/.stderr); if [ "$n" != 1 ]; then multi=$((multi+1)); echo "MULTI($n) $label: $(head -c 300 $out/.stderr)"; fi
    l=$(ls -A $out | grep -v '^\.std' | grep -v spec.json); if [ -n "$l" ]; then left=$((left+1)); echo "LEFT $label: $l"; fi
  fi
  h=$(ls -A $out $W/src | grep '\.reel-' ); if [ -n "$h" ]; then left=$((left+1)); echo "TEMP $label: $h"; fi
}
i=0
for f in $W/src/*; do
  b=$(basename $f); i=$((i+1)); o=$W/out/$i
  case $b in
    spec-*) run "compose $b" $o/c compose $f -o $o/c/o.mp4; run "check $b" $o/k compose $f --check; run "timeline $b" $o/t timeline $f -o $o/t/o.png; continue;;
    *.cube) run "filter cube $b" $o/f filter $W/src/valid.mp4 --filter "ColorCube:file=$f" --preset ultrafast -o $o/f/o.mp4; continue;;
  esac
  run "probe $b" $o/p probe $f
  run "thumbnail $b" $o/th thumbnail $f --at 0.5 -o $o/th/o.png
  run "contact-sheet $b" $o/cs contact-sheet $f --columns 2 --rows 2 --width 64 -o $o/cs/o.png
  run "transcode $b" $o/tr transcode $f --preset ultrafast -o $o/tr/o.mp4
  run "filter $b" $o/fi filter $f --filter PhotoEffectNoir --preset ultrafast -o $o/fi/o.mp4
  run "merge $b" $o/m merge $W/src/valid.mp4 $f --preset 640x480 -o $o/m/o.mp4
  run "export $b" $o/e export $f --preset 640x480 -o $o/e/o.mp4
  run "speed $b" $o/s speed $f --rate 2 -o $o/s/o.mp4
  run "recover $b" $o/r recover $f -o $o/r/o.mp4
  mkdir -p $o/c; echo "{\"preset\":\"640x480\",\"clips\":[{\"file\":\"$f\"}]}" > $o/c/spec.json
  run "compose $b" $o/c compose $o/c/spec.json -o $o/c/o.mp4
  run "timeline $b" $o/c timeline $o/c/spec.json -o $o/c/o.png
done
# The spec is its own output; extremes on the command line.
cp $W/src/spec-minimal.json $W/s.mp4; run "spec as output" $W/out/self compose $W/s.mp4 -o $W/s.mp4
for v in 1e308 -1e308 1e19 -1e19 1e-300 -0 2.5 0x10 inf nan; do
  run "speed --rate $v" $W/out/r$v speed $W/src/valid.mp4 --rate $v -o $W/out/r$v/o.mp4
  run "thumbnail --at $v" $W/out/a$v thumbnail $W/src/valid.mp4 --at $v -o $W/out/a$v/o.png
  run "transcode --crf $v" $W/out/c$v transcode $W/src/valid.mp4 --crf $v --preset ultrafast -o $W/out/c$v/o.mp4
  run "merge dissolve:$v" $W/out/d$v merge $W/src/valid.mp4 $W/src/valid.mp4 --transition dissolve:$v -o $W/out/d$v/o.mp4
  run "contact-sheet --width $v" $W/out/w$v contact-sheet $W/src/valid.mp4 --width $v -o $W/out/w$v/o.png
  # The capture commands on the virtual camera (shoot's keys end at once: nothing saved, one line).
  run "record --fps $v" $W/out/rf$v record -o $W/out/rf$v/o.mp4 --preset low --fps $v --max-duration 0.5
  run "record --max-duration $v" $W/out/rm$v record -o $W/out/rm$v/o.mp4 --preset low --max-duration $v
  run "photo --quality $v" $W/out/pq$v photo -o $W/out/pq$v/o.jpg --quality $v
  run "photo --size $v" $W/out/ps$v photo -o $W/out/ps$v/o.jpg --size ${v}x${v}
  run "shoot --limit $v" $W/out/sl$v shoot -o $W/out/sl$v/o.mp4 --preset low --limit $v
  run "shoot --fps $v" $W/out/sf$v shoot -o $W/out/sf$v/o.mp4 --preset low --fps $v
done
echo "runs=$runs succeeded=$ok refused=$refused crashes=$crash hangs=$hang temporary-or-left=$left multi-line=$multi"
rm -rf $W
