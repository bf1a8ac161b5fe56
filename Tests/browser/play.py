#!/usr/bin/python3
"""Plays a media file in headless Chromium and prints what the <video> element saw.

Usage: play.py FILE [SECONDS]
       play.py --many SECONDS FILE...
       play.py --seek FILE TIME...
Prints one JSON object per file (one line each, in order): readyState, videoWidth,
videoHeight, duration, the currentTime before and after playing, and any media
error code. --many plays the files one after another in one browser. --seek prints
one JSON list instead: for each time, [currentTime, r, g, b] of the picture's centre
after seeking there (what the browser shows, its edit lists applied).
Runs Debian's chromium through chromedriver at /usr/bin/chromedriver, so
nothing is downloaded.
"""
import json
import pathlib
import sys
import tempfile
import time

from seeking import seek_then
from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def play(driver, media, wait):
    page = pathlib.Path(tempfile.mkdtemp()) / "play.html"
    page.write_text(f'<!doctype html><video id="v" muted playsinline src="{media.as_uri()}"></video>')
    driver.get(page.as_uri())
    deadline = time.time() + 15
    while time.time() < deadline:
        state = driver.execute_script("return document.getElementById('v').readyState")
        error = driver.execute_script("var e = document.getElementById('v').error; return e ? e.code : null")
        if state >= 4 or error:
            break
        time.sleep(0.1)
    before = driver.execute_script("return document.getElementById('v').currentTime")
    driver.execute_script("document.getElementById('v').play()")
    time.sleep(wait)
    result = driver.execute_script("""
        var v = document.getElementById('v');
        return {readyState: v.readyState, videoWidth: v.videoWidth, videoHeight: v.videoHeight,
                duration: v.duration, currentTime: v.currentTime, error: v.error ? v.error.code : null};
    """)
    result["before"] = before
    result["file"] = str(media)
    return result


def seek(driver, media, times):
    page = pathlib.Path(tempfile.mkdtemp()) / "seek.html"
    page.write_text(f'<!doctype html><video id="v" muted playsinline preload="auto" src="{media.as_uri()}"></video>'
                    '<canvas id="c" width="16" height="16"></canvas>')
    driver.get(page.as_uri())
    driver.set_script_timeout(30)
    shown = []
    for moment in times:
        shown.append(driver.execute_async_script(seek_then("""
            const c = document.getElementById('c').getContext('2d');
            c.drawImage(v, 0, 0, 16, 16);
            const p = c.getImageData(8, 8, 1, 1).data;
            done([v.currentTime, p[0], p[1], p[2]]);
        """), moment))
    return shown


def main():
    seeking = sys.argv[1] == "--seek"
    if seeking:
        files = [pathlib.Path(sys.argv[2]).resolve()]
    elif sys.argv[1] == "--many":
        wait = float(sys.argv[2])
        files = [pathlib.Path(name).resolve() for name in sys.argv[3:]]
    else:
        wait = float(sys.argv[2]) if len(sys.argv) > 2 else 1.5
        files = [pathlib.Path(sys.argv[1]).resolve()]
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--autoplay-policy=no-user-gesture-required", "--allow-file-access-from-files"):
        options.add_argument(flag)
    options.binary_location = "/usr/bin/chromium"
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        driver.set_page_load_timeout(30)
        if seeking:
            print(json.dumps(seek(driver, files[0], [float(t) for t in sys.argv[3:]])), flush=True)
            return
        for media in files:
            print(json.dumps(play(driver, media, wait)), flush=True)
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
