#!/usr/bin/python3
"""Plays an HLS or DASH package in headless Chromium, every rendition to its end.

Usage: package.py hls|dash DIR
Serves DIR on loopback (python's http.server) with a small player page: it reads
master.m3u8 (HLS) or manifest.mpd (DASH), and for each picture rendition appends its
initialization segment and media segments, and the sound's, to Media Source Extensions
source buffers (fMP4 segments append as they are), plays to the end and reports what the
<video> element saw. Chromium without native HLS plays HLS this way too; whether it has
native HLS is reported (canPlayType) and, if it has, the master playlist is also played
natively. Prints one JSON object per rendition (one line each, in order), then one for
native playback when there is one.
"""
import functools
import http.server
import json
import pathlib
import sys
import threading

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

PAGE = r"""<!doctype html><video id="v" muted playsinline></video><script>
async function text(u) { const r = await fetch(u); if (!r.ok) throw new Error(u + ': ' + r.status); return r.text(); }
async function bytes(u) { const r = await fetch(u); if (!r.ok) throw new Error(u + ': ' + r.status); return r.arrayBuffer(); }
function resolve(base, rel) { return new URL(rel, base).href; }
function attrs(line) {
  const out = {}, re = /([A-Z0-9-]+)=("[^"]*"|[^,]*)/g; let m;
  while ((m = re.exec(line))) out[m[1]] = m[2].replace(/^"|"$/g, '');
  return out;
}
async function mediaPlaylist(url) {
  let init = null; const segments = [];
  for (const line of (await text(url)).split('\n')) {
    if (line.startsWith('#EXT-X-MAP:')) init = resolve(url, attrs(line.slice(11)).URI);
    else if (line && !line.startsWith('#')) segments.push(resolve(url, line));
  }
  return [init].concat(segments);
}
async function hlsTracks(master, variant) {
  const lines = (await text(master)).split('\n'); let audio = null; const variants = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].startsWith('#EXT-X-MEDIA:')) { const a = attrs(lines[i].slice(13)); if (a.TYPE === 'AUDIO') audio = resolve(master, a.URI); }
    if (lines[i].startsWith('#EXT-X-STREAM-INF:')) variants.push({a: attrs(lines[i].slice(18)), uri: resolve(master, lines[i + 1])});
  }
  const v = variants[variant], codecs = v.a.CODECS.split(',');
  const tracks = [{mime: 'video/mp4; codecs="' + codecs[0] + '"', urls: await mediaPlaylist(v.uri)}];
  if (audio) tracks.push({mime: 'audio/mp4; codecs="' + codecs[1] + '"', urls: await mediaPlaylist(audio)});
  return {tracks, count: variants.length, resolution: v.a.RESOLUTION};
}
async function dashTracks(mpd, variant) {
  const doc = new DOMParser().parseFromString(await text(mpd), 'application/xml');
  const tracks = []; let count = 0, resolution = null;
  for (const set of doc.getElementsByTagName('AdaptationSet')) {
    const reps = [...set.getElementsByTagName('Representation')], video = set.getAttribute('contentType') === 'video';
    if (video) count = reps.length;
    const rep = video ? reps[variant] : reps[0];
    if (video) resolution = rep.getAttribute('width') + 'x' + rep.getAttribute('height');
    const t = rep.getElementsByTagName('SegmentTemplate')[0], first = +(t.getAttribute('startNumber') || 1);
    const urls = [resolve(mpd, t.getAttribute('initialization').replace('$RepresentationID$', rep.id))];
    const count_ = rep.getElementsByTagName('S').length;
    for (let k = 0; k < count_; k++) {
      const n = String(first + k);
      urls.push(resolve(mpd, t.getAttribute('media').replace('$RepresentationID$', rep.id)
        .replace(/\$Number%0(\d+)d\$/, (_, w) => n.padStart(+w, '0')).replace('$Number$', n)));
    }
    tracks.push({mime: set.getAttribute('mimeType') + '; codecs="' + rep.getAttribute('codecs') + '"', urls});
  }
  return {tracks, count, resolution};
}
function playToEnd(v) {
  return new Promise(done => { v.onended = done; v.onerror = done; setTimeout(done, (v.duration + 15) * 1000); v.play().catch(done); });
}
async function playMSE(kind, manifest, variant) {
  const v = document.getElementById('v');
  const info = kind === 'hls' ? await hlsTracks(manifest, variant) : await dashTracks(manifest, variant);
  const ms = new MediaSource(); v.src = URL.createObjectURL(ms);
  await new Promise(r => ms.addEventListener('sourceopen', r, {once: true}));
  const starts = [];
  // Every source buffer is added before any data goes in (Chromium takes no more after).
  const buffers = info.tracks.map(t => {
    if (!MediaSource.isTypeSupported(t.mime)) throw new Error('MSE does not take ' + t.mime);
    return ms.addSourceBuffer(t.mime);
  });
  for (const [index, t] of info.tracks.entries()) {
    const sb = buffers[index];
    for (const u of t.urls) {
      sb.appendBuffer(await bytes(u));
      await new Promise((r, j) => { sb.addEventListener('updateend', r, {once: true}); sb.addEventListener('error', () => j(new Error('append ' + u)), {once: true}); });
    }
    starts.push([sb.buffered.start(0), sb.buffered.end(sb.buffered.length - 1), sb.buffered.length]);
  }
  ms.endOfStream();
  await playToEnd(v);
  const q = v.getVideoPlaybackQuality();
  return {mode: 'mse', variant, count: info.count, resolution: info.resolution, videoWidth: v.videoWidth, videoHeight: v.videoHeight,
          duration: v.duration, currentTime: v.currentTime, ended: v.ended, frames: q.totalVideoFrames,
          dropped: q.droppedVideoFrames, buffered: starts, error: v.error ? v.error.code : null};
}
async function playNative(master) {
  const v = document.getElementById('v'); v.src = master;
  await new Promise(r => { v.onloadedmetadata = r; v.onerror = r; setTimeout(r, 15000); });
  await playToEnd(v);
  const q = v.getVideoPlaybackQuality();
  return {mode: 'native', videoWidth: v.videoWidth, videoHeight: v.videoHeight, duration: v.duration, currentTime: v.currentTime,
          ended: v.ended, frames: q.totalVideoFrames, error: v.error ? v.error.code : null};
}
</script>"""


def main():
    kind, folder = sys.argv[1], pathlib.Path(sys.argv[2]).resolve()
    manifest = "master.m3u8" if kind == "hls" else "manifest.mpd"

    class Handler(http.server.SimpleHTTPRequestHandler):
        def do_GET(self):
            if self.path == "/__player.html":
                body = PAGE.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            super().do_GET()

        def log_message(self, *args):
            pass

    Handler.extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                              ".m3u8": "application/vnd.apple.mpegurl", ".mpd": "application/dash+xml",
                              ".m4s": "video/iso.segment", ".mp4": "video/mp4"}
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"

    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--autoplay-policy=no-user-gesture-required"):
        options.add_argument(flag)
    options.binary_location = "/usr/bin/chromium"
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        driver.set_page_load_timeout(30)
        driver.set_script_timeout(120)
        variant, count = 0, 1
        while variant < count:
            driver.get(base + "__player.html")
            result = driver.execute_async_script("""
                const done = arguments[arguments.length - 1];
                playMSE(arguments[0], arguments[1], arguments[2]).then(done, e => done({error: String(e)}));
            """, kind, base + manifest, variant)
            print(json.dumps(result), flush=True)
            if "count" not in result:
                sys.exit(1)
            count = result["count"]
            variant += 1
        if kind == "hls":
            driver.get(base + "__player.html")
            native = driver.execute_script(
                "return document.getElementById('v').canPlayType('application/vnd.apple.mpegurl')")
            if native:
                result = driver.execute_async_script("""
                    const done = arguments[arguments.length - 1];
                    playNative(arguments[0]).then(done, e => done({mode: 'native', error: String(e)}));
                """, base + manifest)
            else:
                result = {"mode": "native", "supported": False}
            result["canPlayType"] = native
            print(json.dumps(result), flush=True)
    finally:
        driver.quit()
        server.shutdown()


if __name__ == "__main__":
    main()
