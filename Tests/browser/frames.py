#!/usr/bin/python3
"""Reads self-identifying frames as headless Chromium shows them.

Usage: frames.py FILE TIME...
Each frame of FILE carries its number in binary in its top half: bit b is the 40-pixel-wide
column b (from the left), white for 1, black for 0. For each time, seeks there, draws the
picture at its own size on a canvas and prints, as one JSON list, [currentTime, number] per
time, and finally plays the file to its end and adds {"ended": ..., "error": ...}. Runs
Debian's chromium through chromedriver at /usr/bin/chromedriver, so nothing is downloaded.
"""
import json
import pathlib
import sys
import tempfile

from seeking import seek_then
from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def main():
    media = pathlib.Path(sys.argv[1]).resolve()
    times = [float(t) for t in sys.argv[2:]]
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--autoplay-policy=no-user-gesture-required", "--allow-file-access-from-files"):
        options.add_argument(flag)
    options.binary_location = "/usr/bin/chromium"
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        driver.set_page_load_timeout(30)
        driver.set_script_timeout(60)
        page = pathlib.Path(tempfile.mkdtemp()) / "frames.html"
        page.write_text(f'<!doctype html><video id="v" muted playsinline preload="auto" src="{media.as_uri()}"></video>'
                        '<canvas id="c"></canvas>')
        driver.get(page.as_uri())
        shown = []
        for moment in times:
            shown.append(driver.execute_async_script(seek_then("""
                const c = document.getElementById('c');
                c.width = v.videoWidth; c.height = v.videoHeight;
                const g = c.getContext('2d');
                g.drawImage(v, 0, 0);
                let n = 0;
                for (let b = 0; b < 8 && b * 40 + 20 < c.width; b++) {
                    const p = g.getImageData(b * 40 + 20, Math.floor(c.height / 4), 1, 1).data;
                    if (p[0] + p[1] + p[2] > 384) n |= 1 << b;
                }
                done([v.currentTime, n]);
            """), moment))
        played = driver.execute_async_script("""
            const done = arguments[arguments.length - 1], v = document.getElementById('v');
            v.currentTime = 0;
            v.playbackRate = 4;
            v.onended = () => done({ended: true, error: v.error ? v.error.code : null, currentTime: v.currentTime});
            v.onerror = () => done({ended: false, error: v.error ? v.error.code : -1, currentTime: v.currentTime});
            setTimeout(() => done({ended: v.ended, error: v.error ? v.error.code : null, currentTime: v.currentTime}), 50000);
            v.play();
        """)
        shown.append(played)
        print(json.dumps(shown), flush=True)
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
