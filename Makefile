# Reel: `make demo` and `make test` set up everything on a fresh Debian 12 machine.

SWIFT ?= swift
CLIPS ?= ../shared/media/seed-clips
RELEASE_BIN := .build/release/reel

# Debian 12 packages: FFmpeg's libraries and headers, the ffmpeg/ffprobe CLI as the
# outside judge in tests and benchmarks, headless Chromium for "does it play",
# libmicrohttpd for the studio, SDL2 for `reel play`'s window, PulseAudio (a real daemon in the audio tests) and Xvfb
# (a real X display in the screen-capture tests; xdotool presses `reel play`'s keys) and exiftool (the outside judge of photo metadata).
DEBIAN_PACKAGES := pkg-config \
	libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libswresample-dev \
	libavfilter-dev libavdevice-dev ffmpeg libmicrohttpd-dev libpulse-dev libsdl2-dev linux-libc-dev \
	chromium chromium-driver python3-selenium bc fontconfig fonts-dejavu-core \
	pulseaudio pulseaudio-utils xvfb x11-utils x11-xserver-utils xdotool libimage-exiftool-perl

.PHONY: deps build debug test demo bench clean format fuzz sanitize soak

deps:
	@scripts/deps.sh $(DEBIAN_PACKAGES)

build: deps
	$(SWIFT) build -c release --product reel

debug:
	$(SWIFT) build

# The real-time recording tests need the optimised binary and the CPU to themselves, so
# they run alone after the rest.
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) build -c release --product reel
	$(SWIFT) test --skip-build --parallel --num-workers 2 --skip RealTimeRecordingTests
	$(SWIFT) test --skip-build --filter RealTimeRecordingTests

demo: deps build
	@scripts/demo.sh $(RELEASE_BIN) $(CLIPS)

bench: deps build
	@scripts/bench.sh $(RELEASE_BIN) $(CLIPS)

# libFuzzer over the spec parser, the .cube parser and asset loading; FUZZ_SECONDS each (60).
fuzz: deps
	@scripts/fuzz.sh

# The test suite under the thread sanitizer and under the address sanitizer (.build/tsan, .build/asan).
sanitize: deps
	@scripts/sanitize.sh

# Thirty minutes of recording and a ten-minute export, watching memory; not in make test.
soak: deps build
	@scripts/soak.sh $(RELEASE_BIN)

clean:
	rm -rf .build
