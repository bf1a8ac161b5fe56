#!/usr/bin/python3
"""Compares Reel Studio's live preview with a recording, as headless Chromium shows them.

Usage: orientation.py BASE_URL LIBRARY_NAME

Opens the studio's page at BASE_URL and reads the live preview (<img id="preview">; of
five looks 0.15 s apart, the one with the most detail), then
plays /library/LIBRARY_NAME in a <video> on the same page (Chromium applies the file's
display matrix; of frames 0.15 s apart, the one with the most detail), and prints one JSON object: for each, the size shown and the way the
virtual camera's colour bars run ("x" when they change along the width, as the sensor
takes them; "y" once the picture is turned a quarter).

Runs Debian's chromium through /usr/bin/chromedriver, so nothing is downloaded.
"""
import json
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

# The picture's size and where its luma changes most: the variance of its column means
# against that of its row means, on a 48-sample thumbnail.
MEASURE = """
function measure(source, width, height) {
  const scale = 48 / Math.max(width, height);
  const w = Math.max(2, Math.round(width * scale)), h = Math.max(2, Math.round(height * scale));
  const canvas = document.createElement('canvas'); canvas.width = w; canvas.height = h;
  const g = canvas.getContext('2d'); g.drawImage(source, 0, 0, w, h);
  const data = g.getImageData(0, 0, w, h).data;
  const columns = new Array(w).fill(0), rows = new Array(h).fill(0);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
    const i = 4 * (y * w + x), luma = 0.299 * data[i] + 0.587 * data[i + 1] + 0.114 * data[i + 2];
    columns[x] += luma / h; rows[y] += luma / w;
  }
  const variance = (v) => { const m = v.reduce((a, b) => a + b, 0) / v.length;
                            return v.reduce((a, b) => a + (b - m) * (b - m), 0) / v.length; };
  const across = variance(columns), down = variance(rows);
  return {width: width, height: height, acrossVariance: across, downVariance: down, bars: across > down ? 'x' : 'y'};
}
"""


def main():
    base, name = sys.argv[1].rstrip("/"), sys.argv[2]
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--autoplay-policy=no-user-gesture-required", "--window-size=1280,900"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        driver.set_script_timeout(30)
        driver.get(base + "/")
        start = time.time()
        while time.time() - start < 20:
            if driver.execute_script("const i = document.getElementById('preview'); return !!(i && i.naturalWidth > 0);"):
                break
            time.sleep(0.1)
        time.sleep(0.5)
        # Of five looks 0.15 s apart, the one with the most detail: the virtual camera
        # flashes white once a second, and a look that caught the flash saw no bars.
        preview = None
        for _ in range(5):
            shown = driver.execute_script(MEASURE + """
                const img = document.getElementById('preview');
                if (!img || !img.naturalWidth) return null;
                const shown = measure(img, img.naturalWidth, img.naturalHeight);
                const box = img.getBoundingClientRect();
                shown.box = [box.width, box.height];
                shown.objectFit = getComputedStyle(img).objectFit;
                return shown;
            """)
            if shown and (not preview or shown["acrossVariance"] + shown["downVariance"]
                          > preview["acrossVariance"] + preview["downVariance"]):
                preview = shown
            time.sleep(0.15)
        recording = driver.execute_async_script(MEASURE + """
            const done = arguments[arguments.length - 1];
            const video = document.createElement('video');
            video.muted = true; video.preload = 'auto';
            video.style.position = 'fixed'; video.style.left = '0'; video.style.top = '0';
            video.addEventListener('error', () => done({error: video.error ? video.error.code : -1}));
            // Several frames, the one with the most detail kept: the virtual camera's first
            // frame of every second is a white flash, which has no bars.
            let best = null, times = [];
            video.addEventListener('loadeddata', () => {
              for (let t = 0.05; t < video.duration; t += 0.15) times.push(t);
              video.currentTime = times.shift();
            });
            video.addEventListener('seeked', () => {
              const shown = measure(video, video.videoWidth, video.videoHeight);
              if (!best || shown.acrossVariance + shown.downVariance > best.acrossVariance + best.downVariance) best = shown;
              if (times.length) { video.currentTime = times.shift(); return; }
              const box = video.getBoundingClientRect();
              best.box = [box.width, box.height];
              done(best);
            });
            video.src = '/library/' + encodeURIComponent(arguments[0]);
            document.body.appendChild(video);
        """, name)
        print(json.dumps({"preview": preview, "recording": recording}))
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
