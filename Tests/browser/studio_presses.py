#!/usr/bin/python3
"""A recording belongs to the press that started it, in the page too (issue 18, defects 3/4's
rule): the camera page's shutter in Video mode in headless Chromium against `reel studio`.

  keyThenPointer   Space starts; a pointer's press and release on the shutter leave it
                   recording; the next Space pauses.
  pointerThenKey   a pointer holds; Space on the shutter leaves it recording; the pointer's
                   release pauses.
  refusedKeyThenPointer
                   a Space whose start never reaches the studio (the request blocked through
                   the DevTools protocol, as a dropped connection would), then a pointer's
                   hold: its release pauses.

Usage: studio_presses.py BASE_URL
Prints one JSON object on its last line: each case's recording state at each step.
"""
import json
import os
import sys
import time

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import studio2  # noqa: E402
from studio import browser, shutter  # noqa: E402


def recording():
    return studio2.get("/api/status")["recording"]


def until(want, timeout=5.0):
    """Seconds until the studio's recording state is WANT; None if it never is."""
    began = time.time()
    while time.time() - began < timeout:
        if recording() == want:
            return time.time() - began
        time.sleep(0.03)
    return None


def key(driver, button):
    driver.execute_script("arguments[0].focus()", button)
    ActionChains(driver).send_keys(Keys.SPACE).perform()


def scenario(driver):
    studio2.camera(driver)
    button = shutter(driver, "video")
    found = {}

    key(driver, button)
    started = until(True)
    time.sleep(0.5)
    ActionChains(driver).click_and_hold(button).perform()
    time.sleep(0.6)
    ActionChains(driver).release(button).perform()
    time.sleep(0.8)
    after_pointer = recording()
    key(driver, button)
    found["keyThenPointer"] = {"started": started, "afterPointer": after_pointer, "pausedByKey": until(False)}

    ActionChains(driver).click_and_hold(button).perform()
    started = until(True)
    time.sleep(0.5)
    key(driver, button)
    time.sleep(0.8)
    after_key = recording()
    held_look = driver.execute_script("return document.getElementById('shutter').classList.contains('held')")
    ActionChains(driver).release(button).perform()
    found["pointerThenKey"] = {"started": started, "afterKey": after_key, "stillLooksHeld": held_look,
                               "pausedByRelease": until(False)}

    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/api/segments/start*"]})
    key(driver, button)
    time.sleep(0.8)
    refused = {"recording": recording(),
               "looksHeld": driver.execute_script("return document.getElementById('shutter').classList.contains('held')")}
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
    ActionChains(driver).click_and_hold(button).perform()
    started = until(True)
    time.sleep(1.0)
    ActionChains(driver).release(button).perform()
    found["refusedKeyThenPointer"] = {"refused": refused, "started": started, "pausedByRelease": until(False)}
    time.sleep(0.3)
    found["status"] = studio2.get("/api/status")
    return found


def main():
    studio2.BASE = sys.argv[1].rstrip("/")
    driver = browser(1366, 900)
    try:
        print(json.dumps(scenario(driver)))
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
