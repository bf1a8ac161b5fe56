#!/usr/bin/env bash
# make format: swift-format (the toolchain's, configured by .swift-format) rewrites the
# given Swift files in place, layout and rules both. With no files it takes the Swift files
# this branch adds beside $FORMAT_BASE (main): new files are formatted whole, while the
# existing tree keeps its layout until the open branches have merged (a whole-tree
# reformat would collide with every one of them). `make lint` checks the rules everywhere.
set -euo pipefail
cd "$(dirname "$0")/.."
swift=${SWIFT:-swift}
base=${FORMAT_BASE:-main}
files=("$@")
if [[ ${#files[@]} -eq 0 ]]; then
  if fork=$(git merge-base HEAD "$base" 2>/dev/null); then
    mapfile -t files < <( { git diff --name-only --diff-filter=A "$fork" -- '*.swift'
                            git ls-files --others --exclude-standard -- '*.swift'; } | sort -u)
  else
    echo "format: no branch '$base' to compare with; name the files: make format FILES='a.swift b.swift'" >&2
    exit 1
  fi
fi
existing=()
for file in "${files[@]}"; do [[ -f $file ]] && existing+=("$file"); done
if [[ ${#existing[@]} -eq 0 ]]; then
  echo "format: no Swift files to format"
  exit 0
fi
"$swift" format format --in-place --parallel "${existing[@]}"
echo "format: ${#existing[@]} files formatted"
