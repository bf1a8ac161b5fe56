#!/bin/sh
# make fuzz: builds the libFuzzer targets in Fuzz/ (with -sanitize=fuzzer,address, in
# .build/fuzz so the normal build is untouched) and runs each for FUZZ_SECONDS (default 60).
# Seeds: Fuzz/Seeds/<kind>, the bad-input corpus, and every earlier crash in Fuzz/Regressions.
# A crash leaves its input in .build/fuzz/crashes/ and fails the run: fix it, then add the
# input to Fuzz/Regressions/<target>/, where FuzzRegressionTests replays it in make test.
set -eu
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
SECONDS_EACH=${FUZZ_SECONDS:-60}
TARGETS=${FUZZ_TARGETS:-"FuzzCubeLUT FuzzCompositionSpec FuzzAsset"}
scratch=.build/fuzz
mkdir -p "$scratch/crashes"
for target in $TARGETS; do
    REEL_FUZZ=1 $SWIFT build --scratch-path "$scratch" --manifest-cache none --product "$target" \
        -Xswiftc -sanitize=fuzzer,address 2>&1 | grep -v -e '^\[' -e 'Cannot export local symbol' || true
    [ -x "$scratch/debug/$target" ] || { echo "fuzz: building $target failed" >&2; exit 1; }
done

# What the spec target points every clip, overlay image and music file at.
media=$(mktemp -d)
trap 'rm -rf "$media"' EXIT
cp Tests/Corpus/files/valid.mp4 "$media/clip.mp4"
cp Tests/Corpus/files/picture-named.mp4 "$media/picture.png"

# The Swift runtime's backtracer fights ASan for a trap; libFuzzer reports it instead.
export SWIFT_BACKTRACE=enable=no
# LeakSanitizer would report the caches FFmpeg and the Swift runtime keep for the process.
export ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1
export REEL_FUZZ_MEDIA="$media"
status=0
summary=""
for target in $TARGETS; do
    case $target in
        FuzzCubeLUT) seeds="Fuzz/Seeds/cube"; extra="-dict=Fuzz/cube.dict -max_len=8192" ;;
        FuzzCompositionSpec) seeds="Fuzz/Seeds/spec"; extra="-dict=Fuzz/spec.dict -max_len=4096" ;;
        FuzzAsset) seeds="Tests/Corpus/files"; extra="-max_len=65536" ;;
    esac
    work="$scratch/corpus/$target"
    mkdir -p "$work" "Fuzz/Regressions/$target"
    log="$scratch/$target.log"
    echo "fuzz: $target for $SECONDS_EACH s"
    if ! "$scratch/debug/$target" "$work" $seeds "Fuzz/Regressions/$target" $extra -max_total_time="$SECONDS_EACH" \
        -timeout=20 -rss_limit_mb=3072 -print_final_stats=1 -artifact_prefix="$scratch/crashes/$target-" >"$log" 2>&1; then
        status=1
        echo "fuzz: $target FAILED; see $log and $scratch/crashes/" >&2
        grep -E 'ERROR|Fatal error|deadly signal|Test unit written' "$log" | head -5 >&2 || true
    fi
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    summary="$summary$target: ${runs:-?} runs (${rate:-?}/s)\n"
done
printf "$summary"
exit $status
