#!/usr/bin/python3
"""The compose page's preview in headless Chromium, on clips whose frames spell their index.

Usage: compose_preview.py BASE NAME_A NAME_B SEED

Each clip's frames carry their number in 8 black/white stripes (bit i is stripe i, left
to right); the test that makes them adds 128 to the second clip's. The script composes
A then B with a cut, waits for the preview, presses play and times the first moving picture
and the media element's decoded sound, scrubs to random times and reads the frame shown,
then changes the composition and checks that the old preview is gone at once. Prints one
JSON object.
"""
import json
import random
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import Select
from selenium.webdriver.common.by import By

CODE = """
const v = document.getElementById('preview-video');
if (!v.videoWidth) return -1;
let c = window.__codeCanvas;
if (!c) { c = window.__codeCanvas = document.createElement('canvas'); }
c.width = v.videoWidth; c.height = v.videoHeight;
const g = c.getContext('2d', {willReadFrequently: true});
g.drawImage(v, 0, 0);
let code = 0;
for (let bit = 0; bit < 8; bit++) {
  const p = g.getImageData(Math.floor((bit + 0.5) * c.width / 8), Math.floor(c.height / 2), 1, 1).data;
  if (p[0] + p[1] + p[2] > 384) code |= (1 << bit);
}
return code;
"""

PLAY = """
const done = arguments[arguments.length - 1];
const v = document.getElementById('preview-video');
const code = () => { %s };
const started = performance.now();
const seen = [];
let audioAt = null, movedAt = null, rms = null;
let analyser = null;
document.getElementById('preview-play').click();
// The sound as the element plays it: its captured stream through an analyser.
const listen = () => {
  try {
    const stream = v.captureStream ? v.captureStream() : null;
    if (!stream || stream.getAudioTracks().length === 0) return;
    // No sound device here: the analyser's context renders to no output device at all.
    const context = new AudioContext({sinkId: {type: 'none'}});
    analyser = context.createAnalyser();
    analyser.fftSize = 2048;
    context.createMediaStreamSource(stream).connect(analyser);
  } catch (e) { rms = String(e); }
};
v.addEventListener('playing', listen, {once: true});
const tick = () => {
  const now = performance.now() - started;
  if (audioAt === null && v.webkitAudioDecodedByteCount > 0 && !v.paused && !v.muted && v.volume > 0) audioAt = now;
  if (analyser && typeof rms !== 'number') {
    const data = new Float32Array(analyser.fftSize);
    analyser.getFloatTimeDomainData(data);
    let sum = 0; for (const x of data) sum += x * x;
    const level = Math.sqrt(sum / data.length);
    if (level > 0.01) rms = level;
  }
  if (movedAt !== null && audioAt !== null && (typeof rms === 'number' || now > movedAt + 1500)) {
    v.pause();
    done({moved: movedAt, audio: audioAt, rms: rms, seen: seen, audioBytes: v.webkitAudioDecodedByteCount});
    return;
  }
  if (now > 8000) { v.pause(); done({moved: movedAt, audio: audioAt, rms: rms, seen: seen, timeout: true}); return; }
  setTimeout(tick, 10);
};
const frame = () => {
  const c = code();
  if (c >= 0 && (seen.length === 0 || seen[seen.length - 1][1] !== c)) seen.push([performance.now() - started, c, v.currentTime]);
  // Moving: a second distinct picture after the first, later in the clip.
  if (movedAt === null && seen.length >= 2 && seen[seen.length - 1][1] > seen[0][1]) movedAt = seen[seen.length - 1][0];
  if (v.requestVideoFrameCallback) v.requestVideoFrameCallback(frame); else requestAnimationFrame(frame);
};
if (v.requestVideoFrameCallback) v.requestVideoFrameCallback(frame); else requestAnimationFrame(frame);
tick();
""" % CODE.replace("return code;", "return code;").replace("\n", "\n  ")

SCRUB = """
const time = arguments[0], done = arguments[arguments.length - 1];
const v = document.getElementById('preview-video');
const scrub = document.getElementById('preview-scrub');
const step = Number(scrub.step) || 1 / 30;
const code = () => { %s };
// The frames the element presents, as their media times: a frame is read only once the
// element has presented the one its settled time falls in. Reading at 'seeked' alone, or a
// fixed wait after it, reads the frame before under load (the compositor presents later).
let presented = -1;
const watch = (now, meta) => { presented = meta.mediaTime; if (!answered) v.requestVideoFrameCallback(watch); };
let answered = false;
const answer = (settled) => { if (answered) return; answered = true;
  done({asked: time, playhead: Number(scrub.value), currentTime: v.currentTime, presented: presented,
        settled: settled, code: code()}); };
v.requestVideoFrameCallback(watch);
scrub.value = time;
scrub.dispatchEvent(new Event('input', {bubbles: true}));
const started = performance.now();
const poll = () => {
  if (answered) return;
  if (!v.seeking && presented >= 0 && Math.abs(presented + step / 2 - v.currentTime) < step * 0.75) { answer(true); return; }
  // A seek within the frame already shown may present nothing new: after 2 s, read what is shown.
  if (performance.now() - started > 2000 && !v.seeking && presented < 0) { answer(false); return; }
  if (performance.now() - started > 8000) { answer(false); return; }
  setTimeout(poll, 10);
};
poll();
""" % CODE.replace("\n", "\n  ")


def browser():
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--autoplay-policy=no-user-gesture-required", "--window-size=1440,1000", "--force-color-profile=srgb"):
        options.add_argument(flag)
    options.binary_location = "/usr/bin/chromium"
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(30)
    driver.set_script_timeout(30)
    return driver


def wait(driver, script, timeout=20.0):
    deadline = time.time() + timeout
    value = None
    while time.time() < deadline:
        value = driver.execute_script(script)
        if value:
            return value
        time.sleep(0.02)
    return value


def add(driver, name):
    driver.execute_script("[...document.querySelectorAll('#clip-list .clip')].find(c => c.dataset.name === arguments[0])"
                          ".querySelector('button.add').click();", name)


def state(driver):
    return driver.execute_script("""
        const p = document.getElementById('preview'), v = document.getElementById('preview-video');
        return {state: p.dataset.state, key: p.dataset.key, src: v.getAttribute('src'), readyState: v.readyState,
                duration: v.duration, status: document.getElementById('preview-status').textContent};""")


def main():
    base, first, second, seed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    driver = browser()
    result = {}
    try:
        driver.get(base + "/compose")
        wait(driver, "return document.querySelectorAll('#clip-list .clip').length >= 2")
        Select(driver.find_element(By.ID, "transition")).select_by_value("none")
        added = time.time()
        add(driver, first)
        add(driver, second)
        ready = wait(driver, "return document.getElementById('preview').dataset.state === 'ready' && "
                             "document.getElementById('preview-video').readyState >= 2")
        result["readyAfter"] = time.time() - added
        result["ready"] = state(driver)
        if not ready:
            print(json.dumps(result))
            return
        result["play"] = driver.execute_async_script(PLAY)
        # Scrubs to random times, each read as the frame shown.
        rng = random.Random(seed)
        duration = result["ready"]["duration"]
        scrubs = []
        for _ in range(12):
            scrubs.append(driver.execute_async_script(SCRUB, round(rng.uniform(0, duration - 0.04), 4)))
        result["scrubs"] = scrubs
        # A changed clip list takes the old picture off at once (same task as the click).
        old = state(driver)
        result["afterChange"] = driver.execute_script("""
            document.querySelectorAll('#order .clip')[1].querySelector('button[aria-label=Remove]').click();
            const p = document.getElementById('preview'), v = document.getElementById('preview-video');
            return {state: p.dataset.state, key: p.dataset.key, src: v.getAttribute('src'), readyState: v.readyState};""")
        result["oldURL"] = driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            setTimeout(() => fetch(arguments[0]).then(r => done(r.status), e => done(String(e))), 400);""",
            base + "/api/compose/preview/" + old["key"] + ".mp4")
        wait(driver, "return document.getElementById('preview').dataset.state === 'ready' && "
                     "document.getElementById('preview-video').readyState >= 2")
        result["changed"] = state(driver)
        result["changedScrub"] = driver.execute_async_script(SCRUB, 1.9)
        # Put the second clip back and press play at once: the time includes making the preview.
        add(driver, second)
        result["immediate"] = driver.execute_async_script(PLAY)
        result["immediateState"] = state(driver)
        # The old preview's 404 is the one this script asked for on purpose.
        result["consoleErrors"] = [e["message"] for e in driver.get_log("browser")
                                   if e.get("level") == "SEVERE" and old["key"] not in e["message"]]
    finally:
        driver.quit()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
