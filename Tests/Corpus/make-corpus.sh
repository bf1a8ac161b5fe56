#!/bin/sh
# Makes the bad-input corpus in Tests/Corpus/files: small clips from the ffmpeg CLI, then
# byte surgery (mp4surgery.py) for the damaged ones. Run it again after changing it; the
# files are committed so that the tests need neither this script nor its exact ffmpeg.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out="$here/files"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
rm -f "$out"/*
ff() { ffmpeg -nostdin -v error -y "$@"; }
cut() { python3 "$here/mp4surgery.py" "$@"; }

# The healthy base: 64x48, 10 frames at 10 fps with B-frames (so the video has an edit
# list), and a mono tone. The index (moov) is at the end, as ffmpeg writes by default.
ff -f lavfi -i testsrc2=size=64x48:rate=10:duration=1 -f lavfi -i sine=frequency=440:sample_rate=8000:duration=1 \
   -c:v libx264 -preset medium -pix_fmt yuv420p -c:a aac -b:a 16k -ac 1 -shortest "$work/base.mp4"
ff -i "$work/base.mp4" -c copy -movflags +faststart "$work/base-faststart.mp4"
cp "$work/base.mp4" "$out/valid.mp4"

# Cut short, empty, misnamed.
cut "$work/base-faststart.mp4" "$out/truncated.mp4" truncate 0.6
: > "$out/empty.mp4"
cp "$work/base.mp4" "$out/video-named.png"
ff -f lavfi -i testsrc2=size=32x24 -frames:v 1 "$work/picture.png"
cp "$work/picture.png" "$out/picture-named.mp4"
printf 'These are notes, not a movie.\n' > "$out/text-named.mp4"

# Container damage.
cut "$work/base.mp4" "$out/garbage-after-moov.mp4" append 3000
cut "$work/base.mp4" "$out/missing-moov.mp4" drop moov
cut "$work/base.mp4" "$out/mdat-past-end.mp4" grow mdat 1000000
cut "$work/base-faststart.mp4" "$out/mdat-past-end-moov-first.mp4" grow mdat 1000000

# Header values out of range.
cut "$work/base.mp4" "$out/huge-dimensions.mp4" dimensions 65535 65535
ff -f lavfi -i testsrc2=size=16x16:rate=5:duration=0.4 -c:v rawvideo -pix_fmt uyvy422 "$work/raw.mov"
cut "$work/raw.mov" "$out/huge-dimensions-raw.mov" dimensions 65535 65535
cut "$work/base.mp4" "$out/zero-timescale.mp4" timescale vide 0
cut "$work/base.mp4" "$work/zero-both.mp4" timescale soun 0
cut "$work/zero-both.mp4" "$out/zero-timescales-all.mp4" movie-timescale 0
cut "$work/base.mp4" "$out/negative-durations.mp4" negative-durations
cut "$work/base.mp4" "$out/negative-stts.mp4" negative-stts

# Unusual but well-formed content.
# A video track that lists no samples: a fragmented file's empty moov without its fragments.
ff -i "$work/base.mp4" -an -c copy -movflags +frag_keyframe+empty_moov+default_base_moof "$work/fragmented.mp4"
cut "$work/fragmented.mp4" "$work/no-moof.mp4" drop moof
cut "$work/no-moof.mp4" "$work/no-mdat.mp4" drop mdat
cut "$work/no-mdat.mp4" "$out/no-frames.mp4" drop mfra
ff -f lavfi -i sine=frequency=440:sample_rate=8000:duration=1 -c:a aac -b:a 16k -ac 1 "$out/audio-only.mp4"
printf '1\n00:00:00,000 --> 00:00:01,000\nHello\n\n2\n00:00:01,000 --> 00:00:02,000\nAgain\n' > "$work/subs.srt"
ff -i "$work/subs.srt" -c:s mov_text "$out/subtitles-only.mp4"
# Variable frame rate with gaps of nearly three seconds: 3 frames every 3 s over 9 s.
ff -f lavfi -i testsrc2=size=64x48:rate=10:duration=9 -vf "select='lt(mod(n\,30)\,3)'" -fps_mode vfr \
   -c:v libx264 -preset ultrafast -pix_fmt yuv420p "$out/vfr-gaps.mp4"

ls -l "$out"
