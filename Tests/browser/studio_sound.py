#!/usr/bin/python3
"""The camera page's preview with sound in headless Chromium (issue 23, item 5).

Usage: studio_sound.py BASE [SECONDS]

Opens the camera page, waits for the silent MJPEG preview, presses the Sound switch and
times the first moving picture with sound (from the press to the element presenting a
second frame while decoding sound). Then, for SECONDS (8), it watches what the element
plays, in the element's own timeline (media time), so that a loaded machine's late
callbacks cannot move the numbers:

  - pictures: every presented frame's media time (requestVideoFrameCallback's metadata),
    and the virtual camera's frame counter read from the drawn frame (16 blocks along the
    top, white = 1). The camera flashes on each frame whose counter is a multiple of the
    rate, at media time K + counter / rate, with K the median of (media time - counter / rate)
    over the frames seen; a flash counts when a drawn flash frame was seen.
  - sound: the element through a MediaElementAudioSourceNode into an AudioWorklet that
    finds each click's first loud sample in the AudioContext's time, mapped to media time
    by the median of (element currentTime - context currentTime) read together every 10 ms.

Prints one JSON object: the start-up time, the flashes' and clicks' media times and each
click's offset from its flash, the latency the page showed, the meter's source and level,
and what the page showed after the switch was turned off.
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from studio import browser, wait, wait_for_preview  # noqa: E402

START = """
const done = arguments[arguments.length - 1];
const v = document.getElementById('live-video');
const started = performance.now();
const frames = [];
let firstAt = null;
const frame = (now, meta) => {
  frames.push(meta.mediaTime);
  if (firstAt === null && frames.length >= 2 && frames[frames.length - 1] > frames[0] && v.webkitAudioDecodedByteCount > 0
      && !v.paused) firstAt = performance.now() - started;
  if (firstAt === null && performance.now() - started < 20000) v.requestVideoFrameCallback(frame);
};
v.requestVideoFrameCallback(frame);
document.getElementById('sound-chip').click();
const poll = () => {
  const elapsed = performance.now() - started;
  if (firstAt !== null || elapsed > 20000) {
    const requests = performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/live/'))
      .slice(0, 4).map((e) => [e.name.replace(/^.*\/api\/live\//, ''), Math.round(e.startTime - started), Math.round(e.responseEnd - started)]);
    done({first: firstAt, requests: requests, frames: frames.length, readyState: v.readyState, audioBytes: v.webkitAudioDecodedByteCount,
          width: v.videoWidth, height: v.videoHeight, pressed: document.getElementById('sound-chip').getAttribute('aria-pressed'),
          imgHidden: document.getElementById('preview').hidden, src: document.getElementById('preview').getAttribute('src')});
    return;
  }
  setTimeout(poll, 20);
};
poll();
"""

WORKLET = """
class Clicks extends AudioWorkletProcessor {
  constructor() { super(); this.last = -1e9; }
  process(inputs, outputs) {
    const input = inputs[0];
    if (input && input.length) {
      const channel = input[0];
      for (let i = 0; i < channel.length; i++) {
        if (Math.abs(channel[i]) > 0.2) {
          const t = (currentFrame + i) / sampleRate;
          if (t - this.last > 0.3) this.port.postMessage(t);
          this.last = t;
        }
      }
      for (let c = 0; c < outputs[0].length && c < input.length; c++) outputs[0][c].set(input[c]);
    }
    return true;
  }
}
registerProcessor('clicks', Clicks);
"""

MEASURE = """
const seconds = arguments[0], worklet = arguments[1], done = arguments[arguments.length - 1];
const v = document.getElementById('live-video');
const rate = 30;
(async () => {
  let context;
  try { context = new AudioContext({sinkId: {type: 'none'}}); } catch (_) { context = new AudioContext(); }
  await context.audioWorklet.addModule(URL.createObjectURL(new Blob([worklet], {type: 'application/javascript'})));
  const node = new AudioWorkletNode(context, 'clicks');
  const clicks = [];
  node.port.onmessage = (e) => clicks.push(e.data);
  context.createMediaElementSource(v).connect(node);
  node.connect(context.destination);
  await context.resume();
  const canvas = document.createElement('canvas');
  const g = canvas.getContext('2d', {willReadFrequently: true});
  const seen = [];
  const pairs = [];
  const latencies = [];
  const meter = [];
  const started = performance.now();
  let running = true;
  const frame = (now, meta) => {
    if (!running) return;
    const w = v.videoWidth, h = v.videoHeight;
    const block = w / 1280 * 16;   // the camera draws 16 px blocks on 1280 px; the preview is scaled
    canvas.width = Math.ceil(block * 16); canvas.height = Math.ceil(block);
    g.drawImage(v, 0, 0, canvas.width, canvas.height, 0, 0, canvas.width, canvas.height);
    const row = g.getImageData(0, Math.floor(block / 2), canvas.width, 1).data;
    let counter = 0;
    for (let bit = 0; bit < 16; bit++) {
      const x = Math.floor((bit + 0.5) * block);
      if (row[x * 4] + row[x * 4 + 1] + row[x * 4 + 2] > 384) counter |= 1 << bit;
    }
    g.drawImage(v, Math.floor(w * 0.75), Math.floor(h * 0.3), 1, 1, 0, 0, 1, 1);
    const p = g.getImageData(0, 0, 1, 1).data;
    seen.push([meta.mediaTime, counter, p[0] + p[1] + p[2] > 660]);
    v.requestVideoFrameCallback(frame);
  };
  v.requestVideoFrameCallback(frame);
  const tick = () => {
    if (!running) return;
    pairs.push([context.currentTime, v.currentTime - context.currentTime]);
    const l = document.getElementById('latency').dataset.latency;
    if (l !== undefined) latencies.push(Number(l));
    const m = document.getElementById('mic-meter');
    meter.push([m.dataset.source, Number(m.dataset.level || -999)]);
    if (performance.now() - started > seconds * 1000) {
      running = false;
      const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.floor(s.length / 2)] : null; };
      const K = median(seen.map(([t, c]) => t - c / rate));
      // Each click mapped by the pairs read within 0.1 s of it, else by the nearest pair: a jump
      // ahead or a stall (the page waiting for a fragment on a loaded machine) moves the
      // element's timeline against the context's, and a wider window mixed the two sides of
      // one (a CI run at load: one click 69 ms early while the latency rose 0.84 -> 1.3 s).
      const offset = median(pairs.map(([, o]) => o));
      const nearest = (t) => pairs.reduce((a, b) => Math.abs(b[0] - t) < Math.abs(a[0] - t) ? b : a, [Infinity, offset])[1];
      const near = (t) => median(pairs.filter(([c]) => Math.abs(c - t) < 0.1).map(([, o]) => o)) ?? nearest(t);
      const flashes = [...new Set(seen.filter(([, c, bright]) => bright && c % rate === 0).map(([, c]) => c))]
        .map((c) => K + c / rate);
      const heard = clicks.map((t) => t + near(t));
      const offsets = [];
      for (const f of flashes) {
        const near = heard.filter((t) => Math.abs(t - f) < 0.3);
        if (near.length) offsets.push(near.reduce((a, b) => Math.abs(a - f) < Math.abs(b - f) ? a : b) - f);
      }
      // How well frames and counters agree: the spread of (media time - counter / rate).
      const spread = seen.map(([t, c]) => t - c / rate - K).filter((d) => Math.abs(d) > 0.001).length;
      done({frames: seen.length, misread: spread, K: K, contextOffset: offset, pairs: pairs.length,
            pairSpread: [Math.min(...pairs.map(([, o]) => o)) - offset, Math.max(...pairs.map(([, o]) => o)) - offset],
            flashes: flashes, clicks: heard, offsets: offsets, latencies: latencies, meter: meter.slice(-60),
            currentTime: v.currentTime, dropped: v.getVideoPlaybackQuality().droppedVideoFrames,
            sampleRate: context.sampleRate});
      return;
    }
    setTimeout(tick, 10);
  };
  tick();
})().catch((e) => done({error: String(e)}));
"""

OFF = """
const done = arguments[arguments.length - 1];
document.getElementById('sound-chip').click();
const started = performance.now();
const poll = () => {
  const img = document.getElementById('preview'), v = document.getElementById('live-video');
  if ((img.naturalWidth > 0 && !img.hidden && v.hidden) || performance.now() - started > 10000) {
    done({imgShown: !img.hidden && img.naturalWidth > 0, videoHidden: v.hidden, src: v.getAttribute('src'),
          pressed: document.getElementById('sound-chip').getAttribute('aria-pressed'),
          latencyHidden: document.getElementById('latency').hidden});
    return;
  }
  setTimeout(poll, 50);
};
poll();
"""


def main():
    base = sys.argv[1]
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 8.0
    driver = browser()
    driver.set_script_timeout(60 + seconds)
    result = {}
    try:
        driver.get(base + "/")
        result["mjpeg"] = bool(wait_for_preview(driver))
        result["start"] = driver.execute_async_script(START)
        # The meter while the stream plays: the page's analyser on the element's sound.
        meter = []
        for _ in range(30):
            meter.append(driver.execute_script(
                "const m = document.getElementById('mic-meter'); return [m.dataset.source, Number(m.dataset.level || -999),"
                " m.getAttribute('aria-valuenow')];"))
            time.sleep(0.1)
        result["meter"] = meter
        result["measure"] = driver.execute_async_script(MEASURE, seconds, WORKLET)
        result["latencyText"] = driver.execute_script("return document.getElementById('latency').textContent")
        result["off"] = driver.execute_async_script(OFF)
        result["consoleErrors"] = [e["message"] for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
    finally:
        driver.quit()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
