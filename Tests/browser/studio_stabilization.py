#!/usr/bin/python3
"""The camera page's Stabilization switch (issue 18), in two headless Chromium pages on one
`reel studio` (started on virtual:handheld-camera, whose picture shakes):

  1. page A turns it on; page B shows it on (timed by the machine's clock), the state says
     the recordings' connection is steadied (`active`), and A records and saves a video;
  2. page B turns it off; A shows it and records and saves a second video;
  3. A holds the shutter and, while it records, B turns it on: both pages show it on with a
     note that it reaches the next recording, and the recording under way stays as it began
     (`active` off) until it ends; A saves that third video.

Usage: studio_stabilization.py BASE_URL HOLD_SECONDS
Prints one JSON object on its last line: what each page showed at each step, the delays, and
the library names of the three videos (steadied, unsteadied, changed mid-recording).
"""
import os
import sys
import time

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import studio2  # noqa: E402
from studio import browser, shutter, wait  # noqa: E402

SWITCH = "control-stabilization-input"


def shown(driver):
    """The switch as the page shows it, and the words under it."""
    return driver.execute_script("""
        const i = document.getElementById(arguments[0]), w = document.getElementById('control-stabilization-why');
        return {checked: i.getAttribute('aria-checked') === 'true', disabled: i.disabled, role: i.getAttribute('role'),
                name: i.closest('.control').querySelector('.name').textContent, note: w.hidden ? null : w.textContent};""", SWITCH)


def control():
    return studio2.control("stabilization")


def flip(source, other, on):
    """Clicks the switch in SOURCE; seconds until OTHER shows it ON, both by the machine's clock."""
    other.execute_script("""window.reelSeen = null; const i = document.getElementById(arguments[0]);
        new MutationObserver(() => { if (!window.reelSeen && (i.getAttribute('aria-checked') === 'true') === arguments[1])
          window.reelSeen = Date.now(); }).observe(i, {attributes: true});""", SWITCH, on)
    source.execute_script("""window.reelClicked = null; document.getElementById(arguments[0])
        .addEventListener('click', () => { window.reelClicked = Date.now(); }, {once: true});""", SWITCH)
    source.find_element(By.ID, SWITCH).click()
    seen = wait(other, "return window.reelSeen", timeout=5, step=0.02)
    clicked = source.execute_script("return window.reelClicked")
    return (seen - clicked) / 1000 if seen and clicked else None


def settle():
    """Waits until no segment records (a loaded machine finishes a segment's file late)."""
    deadline = time.time() + 10
    while time.time() < deadline and studio2.get("/api/status")["recording"]:
        time.sleep(0.05)


def save(driver):
    """Saves the segments from the page's Save button; the library names it added."""
    before = {item["name"] for item in studio2.get("/api/library")}
    wait(driver, "return !document.getElementById('save').disabled", timeout=10)
    driver.find_element(By.ID, "save").click()
    wait(driver, "return document.getElementById('video-dialog').open", timeout=60)
    driver.execute_script("document.getElementById('video-dialog').close()")
    return [item["name"] for item in studio2.get("/api/library") if item["name"] not in before]


def scenario(a, b, seconds):
    studio2.post("/api/preset", {"id": "640x480"})
    studio2.camera(a)
    studio2.camera(b)
    found = {"initial": {"a": shown(a), "b": shown(b), "control": control()}}

    found["onDelay"] = flip(a, b, True)
    found["afterOn"] = {"a": shown(a), "b": shown(b), "control": control()}
    studio2.hold(a, seconds)
    settle()
    found["steadied"] = save(a)

    found["offDelay"] = flip(b, a, False)
    found["afterOff"] = {"a": shown(a), "b": shown(b), "control": control()}
    studio2.hold(a, seconds)
    settle()
    found["unsteadied"] = save(a)

    # On while page A records: the recording under way keeps what it began with.
    button = shutter(a, "video")
    ActionChains(a).click_and_hold(button).perform()
    time.sleep(seconds / 3)
    found["midDelay"] = flip(b, a, True)
    time.sleep(0.3)
    found["during"] = {"a": shown(a), "b": shown(b), "control": control(), "recording": studio2.get("/api/status")["recording"]}
    time.sleep(seconds * 2 / 3)
    ActionChains(a).release(button).perform()
    settle()
    time.sleep(0.3)
    found["afterRelease"] = {"a": shown(a), "b": shown(b), "control": control()}
    found["changedMidway"] = save(a)
    return found


def main():
    studio2.BASE = sys.argv[1].rstrip("/")
    seconds = float(sys.argv[2])
    drivers = [browser(1366, 900), browser(1366, 900)]
    try:
        result = scenario(drivers[0], drivers[1], seconds)
        studio2.report(result, drivers)
    finally:
        for d in drivers:
            d.quit()


if __name__ == "__main__":
    main()
