#!/usr/bin/env bash
# make docs: the DocC catalogs of Reel's public modules (Sources/<Module>/<Module>.docc:
# each module's overview, and ReelComposition's porting guide and seed-composition
# walkthrough) with the modules' public symbols, as one static site in .build/docs/site.
# Serve that folder (python3 -m http.server -d .build/docs/site) and open
# /documentation/reelcomposition/.
#
# The symbol graphs come from the modules `swift build` has just built: the toolchain's
# `swift symbolgraph-extract` reads their .swiftmodule files (public API only), the same
# graphs `-Xswiftc -emit-symbol-graph` gives without building the package a second time
# under other flags. No plugin and nothing fetched: the toolchain's `docc` does the rest.
#
# The five modules go into one archive so that a doc comment in ReelAsset can link
# ``ReelError`` (ReelCore's): such links are qualified with their module (``/ReelCore/ReelError``)
# in the extracted graphs, since DocC resolves a bare name only inside its own module.
# Any DocC warning (a broken link, a parameter documented that does not exist) fails it.
set -euo pipefail
cd "$(dirname "$0")/.."
swift=${SWIFT:-swift}
modules=(ReelCore ReelAsset ReelFilters ReelComposition ReelCapture)
out=.build/docs
rm -rf "$out"
mkdir -p "$out/symbol-graphs" "$out/Reel.docc"

for module in "${modules[@]}"; do "$swift" build --target "$module" >/dev/null; done
bin=$("$swift" build --show-bin-path)
triple=$("$swift" -print-target-info | sed -n 's/.*"triple": "\(.*\)".*/\1/p' | head -1)
# The C modules under ReelAV, which loading its dependants' interfaces needs.
cflags=(-Xcc "-fmodule-map-file=Sources/CFFmpeg/module.modulemap" -Xcc "-I$(pkg-config --variable=includedir libavformat)")
# FreeType and fontconfig for ReelAV's styled text.
cflags+=(-Xcc "-fmodule-map-file=Sources/CFreeType/module.modulemap")
for flag in $(pkg-config --cflags-only-I freetype2 fontconfig); do cflags+=(-Xcc "$flag"); done
for c in CFFmpegShims CV4L2; do cflags+=(-Xcc "-fmodule-map-file=$bin/$c.build/module.modulemap"); done

for module in "${modules[@]}"; do
  "$swift" symbolgraph-extract -module-name "$module" -I "$bin/Modules" -target "$triple" \
    -minimum-access-level public -skip-inherited-docs -output-dir "$out/symbol-graphs" "${cflags[@]}"
  cp "Sources/$module/$module.docc/"*.md "$out/Reel.docc/"
done
# Extensions of other modules' types (ReelCore@Swift.symbols.json and the like) add
# nothing to Reel's pages and would document the standard library: left out.
find "$out/symbol-graphs" -name '*@*.symbols.json' -delete

/usr/bin/python3 - "$out/symbol-graphs" <<'PY'
import json, os, re, sys
folder = sys.argv[1]
graphs = {f: json.load(open(os.path.join(folder, f))) for f in os.listdir(folder)}
owner = {}  # top-level symbol name -> its module
for graph in graphs.values():
    for symbol in graph["symbols"]:
        if len(symbol["pathComponents"]) == 1:
            owner.setdefault(symbol["pathComponents"][0], graph["module"]["name"])
link = re.compile(r"``([A-Za-z_][A-Za-z0-9_]*)([^`]*)``")
for name, graph in graphs.items():
    module = graph["module"]["name"]
    def qualify(match):
        home = owner.get(match.group(1))
        if home is None or home == module:
            return match.group(0)
        return "``/%s/%s%s``" % (home, match.group(1), match.group(2))
    for symbol in graph["symbols"]:
        for line in (symbol.get("docComment") or {}).get("lines", []):
            line["text"] = link.sub(qualify, line["text"])
    json.dump(graph, open(os.path.join(folder, name), "w"))
PY

log=$out/docc.log
docc convert "$out/Reel.docc" --additional-symbol-graph-dir "$out/symbol-graphs" \
  --fallback-display-name Reel --fallback-bundle-identifier org.reel.Reel \
  --output-path "$out/Reel.doccarchive" --transform-for-static-hosting --warnings-as-errors 2>&1 | tee "$log"
rm -rf "$out/site"
cp -R "$out/Reel.doccarchive" "$out/site"
if grep -qiE "warning|error" "$log"; then
  echo "docs: DocC reported problems (see $log)" >&2
  exit 1
fi
echo "docs: $out/site: $(find "$out/site/data/documentation" -name '*.json' | wc -l) pages; open documentation/reelcomposition/index.html"
