#!/usr/bin/env bash
# make demo: the seed composition (five clips, dissolve and push, the sticker, 640x480),
# from ../shared/media/seed-clips when present, else from clips Reel makes itself.
set -euo pipefail
reel=${1:?reel binary}; clips=${2:?clip dir}
out=${DEMO_OUTPUT:-reel-demo.mp4}
if compgen -G "$clips/*.mp4" >/dev/null; then
  "$reel" demo --clips "$clips" -o "$out"
else
  "$reel" demo -o "$out"
fi
"$reel" probe "$out"
