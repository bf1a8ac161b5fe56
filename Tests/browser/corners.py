#!/usr/bin/python3
"""Shows a movie in headless Chromium and prints how it is displayed.

Usage: corners.py FILE
Prints one JSON object: videoWidth, videoHeight (after the display matrix), and the
colour [r, g, b] Chromium draws near each corner of the picture (topLeft, topRight,
bottomLeft, bottomRight), at 15 % in from each edge, after seeking to 0.5 s.
Runs Debian's chromium through chromedriver at /usr/bin/chromedriver.
"""
import json
import pathlib
import sys
import tempfile

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def main():
    media = pathlib.Path(sys.argv[1]).resolve()
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--allow-file-access-from-files"):
        options.add_argument(flag)
    options.binary_location = "/usr/bin/chromium"
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        driver.set_page_load_timeout(30)
        driver.set_script_timeout(30)
        page = pathlib.Path(tempfile.mkdtemp()) / "corners.html"
        page.write_text(f'<!doctype html><video id="v" muted preload="auto" src="{media.as_uri()}"></video>'
                        '<canvas id="c"></canvas>')
        driver.get(page.as_uri())
        result = driver.execute_async_script("""
            const done = arguments[arguments.length - 1], v = document.getElementById('v');
            const go = () => {
                v.onseeked = () => setTimeout(() => {
                    const w = v.videoWidth, h = v.videoHeight, c = document.getElementById('c');
                    c.width = w; c.height = h;
                    const g = c.getContext('2d');
                    g.drawImage(v, 0, 0, w, h);
                    const at = (fx, fy) => Array.from(g.getImageData(Math.floor(w * fx), Math.floor(h * fy), 1, 1).data).slice(0, 3);
                    done({videoWidth: w, videoHeight: h, topLeft: at(0.15, 0.15), topRight: at(0.85, 0.15),
                          bottomLeft: at(0.15, 0.85), bottomRight: at(0.85, 0.85)});
                }, 300);
                v.currentTime = 0.5;
            };
            if (v.readyState >= 1) go(); else v.onloadedmetadata = go;
        """)
        print(json.dumps(result), flush=True)
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
