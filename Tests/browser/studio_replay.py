#!/usr/bin/python3
"""The camera page's Save replay button (issue 23, item 4) in headless Chromium.

Usage: studio_replay.py BASE

Against `reel studio --replay-buffer N`: the camera page shows the button ("Last N s"),
a press saves while the preview goes on (the picture keeps changing), the page says when the
replay is saved, and the gallery lists it. Prints one JSON object.
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from studio import browser, wait, wait_for_preview  # noqa: E402


def main():
    base = sys.argv[1]
    driver = browser()
    driver.set_script_timeout(60)
    result = {}
    try:
        driver.get(base + "/")
        result["preview"] = bool(wait_for_preview(driver))
        result["button"] = wait(driver, """const b = document.getElementById('save-replay');
            return !b.hidden && b.offsetWidth > 0 ? {text: b.textContent.trim(), label: b.getAttribute('aria-label')} : null;""")
        # Let the buffer fill past its length first.
        time.sleep(float(sys.argv[2]) if len(sys.argv) > 2 else 5)
        frames = lambda: driver.execute_script(  # noqa: E731
            "return fetch('/api/status').then(r => r.json()).then(s => s.previewFrameIndex)")
        before = frames()
        pressed = time.time()
        driver.find_element("id", "save-replay").click()
        announced = wait(driver, "const a = document.getElementById('announce').textContent;"
                                 " return a.startsWith('Replay saved') ? a : null;", timeout=90)
        result["savedAfter"] = time.time() - pressed
        result["announced"] = announced
        result["toast"] = driver.execute_script("return document.getElementById('toast').textContent")
        result["previewMoved"] = [before, frames()]
        driver.get(base + "/gallery")
        result["gallery"] = wait(driver, """const names = [...document.querySelectorAll('article.item')].map(a => a.dataset.name);
            return names.some(n => n.startsWith('replay-')) ? names : null;""", timeout=20)
        result["consoleErrors"] = [e["message"] for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
    finally:
        driver.quit()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
