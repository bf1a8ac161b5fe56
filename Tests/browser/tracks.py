#!/usr/bin/python3
"""Loads a movie with a WebVTT <track> in headless Chromium and prints what the browser read.

Usage: tracks.py MOVIE VTT
Prints one JSON object: the track element's readyState (2 when loaded, 3 on an error),
the number of cues the browser parsed (track.cues.length) and each cue's
[startTime, endTime, text]. Runs Debian's chromium through /usr/bin/chromedriver,
nothing downloaded.
"""
import json
import pathlib
import shutil
import sys
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def main():
    movie = pathlib.Path(sys.argv[1]).resolve()
    vtt = pathlib.Path(sys.argv[2]).resolve()
    # The page beside copies of both, so the track is same-folder (file:// with file access).
    folder = pathlib.Path(tempfile.mkdtemp())
    shutil.copy(movie, folder / ("movie" + movie.suffix))
    shutil.copy(vtt, folder / "track.vtt")
    page = folder / "tracks.html"
    page.write_text('<!doctype html><video id="v" muted preload="auto" src="movie%s">'
                    '<track id="t" kind="subtitles" srclang="en" label="en" src="track.vtt" default></video>' % movie.suffix)
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--allow-file-access-from-files"):
        options.add_argument(flag)
    options.binary_location = "/usr/bin/chromium"
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        driver.set_page_load_timeout(30)
        driver.get(page.as_uri())
        deadline = time.time() + 30
        state = 0
        while time.time() < deadline:
            state = driver.execute_script("var t = document.getElementById('t'); t.track.mode = 'showing'; return t.readyState")
            if state >= 2:
                break
            time.sleep(0.1)
        cues = driver.execute_script("""
            var c = document.getElementById('t').track.cues;
            var out = [];
            for (var i = 0; c && i < c.length; i++) out.push([c[i].startTime, c[i].endTime, c[i].text]);
            return out;
        """)
        print(json.dumps({"readyState": state, "count": len(cues), "cues": cues}), flush=True)
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
