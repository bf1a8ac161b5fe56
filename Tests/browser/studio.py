#!/usr/bin/python3
"""Drives Reel Studio's pages in headless Chromium and prints what a user would see.

Usage: studio.py SCENARIO BASE_URL [ARGUMENTS...]

Scenarios (each prints one JSON object on its last line):
  preview BASE                 frames arrive and change; frame rate and latency as seen by the page
  filter BASE NAME             the picker's NAME changes the preview (colour before and after)
  photo BASE                   the shutter makes a photo that the dialog shows and the gallery lists
  delete BASE NAME             deletes NAME from the gallery through its button and the confirmation
  record BASE S1 S2 ...        holds the record button S1, S2… seconds, saves, plays the merged video
  focus BASE X Y               taps the preview at X, Y (0…1) and reports the focus point the studio answered
  compose BASE NAME1 NAME2     composes two library clips, exports, plays the result
  screens BASE DIR             screenshots of each page at desktop size and at 390x844 into DIR
  token BASE                   opens BASE (with ?token=) and reports whether the page and preview load

Runs Debian's chromium through /usr/bin/chromedriver, so nothing is downloaded.
"""
import json
import pathlib
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

# Reads the virtual camera's frame counter (16 blocks along the top, white = 1) and the
# colour of the picture from the preview <img>, through a canvas.
SAMPLE = """
const img = document.getElementById('preview');
if (!img || !img.naturalWidth) return null;
const canvas = document.createElement('canvas');
canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
const g = canvas.getContext('2d');
g.drawImage(img, 0, 0);
const scale = img.naturalWidth / 1280;
let counter = 0;
for (let bit = 0; bit < 16; bit++) {
  const p = g.getImageData(Math.floor((bit * 16 + 8) * scale), Math.floor(8 * scale), 1, 1).data;
  if (p[0] + p[1] + p[2] > 384) counter |= (1 << bit);
}
const area = g.getImageData(0, Math.floor(canvas.height * 0.3), canvas.width, Math.floor(canvas.height * 0.4)).data;
let chroma = 0, sum = 0, n = 0;
for (let i = 0; i < area.length; i += 4 * 97) {
  chroma += Math.abs(area[i] - area[i + 1]) + Math.abs(area[i + 1] - area[i + 2]);
  sum += area[i] + area[i + 1] + area[i + 2]; n++;
}
return {counter: counter, chroma: chroma / n, brightness: sum / n / 3, width: img.naturalWidth, height: img.naturalHeight};
"""


def browser(width=1440, height=900, mobile=False):
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--autoplay-policy=no-user-gesture-required", f"--window-size={width},{height}",
                 "--hide-scrollbars", "--force-color-profile=srgb"):
        options.add_argument(flag)
    options.binary_location = "/usr/bin/chromium"
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(30)
    size(driver, width, height, mobile)
    return driver


def size(driver, width, height, mobile):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})


def wait(driver, script, timeout=15.0, step=0.05):
    deadline = time.time() + timeout
    value = None
    while time.time() < deadline:
        value = driver.execute_script(script)
        if value:
            return value
        time.sleep(step)
    return value


def shutter(driver, mode):
    """The camera page's one shutter, after choosing MODE ('photo' or 'video') on its mode switch."""
    driver.find_element(By.ID, f"mode-{mode}").click()
    wait(driver, f"return document.getElementById('mode-{mode}').getAttribute('aria-checked') === 'true'", timeout=3)
    return driver.find_element(By.ID, "shutter")


def sample(driver):
    return driver.execute_script(SAMPLE)


def wait_for_preview(driver):
    return wait(driver, "const i = document.getElementById('preview'); return i && i.naturalWidth > 0;")


def api(driver, path):
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        f"fetch('{path}').then(r => r.json()).then(done, e => done({{error: String(e)}}));")


def preview(driver, base):
    driver.get(base + "/")
    ready = wait_for_preview(driver)
    first = sample(driver)
    time.sleep(0.4)
    second = sample(driver)
    # Two seconds of the page's view: distinct frames seen, and how far behind the capture they are.
    seen = set()
    lags = []
    start = time.time()
    while time.time() - start < 2:
        before = time.time()
        status = api(driver, "/api/status")
        shown = sample(driver)
        rtt = time.time() - before
        if shown and "deliveredFrames" in status:
            seen.add(shown["counter"])
            rate = status.get("frameRate") or 30
            lags.append((status["captureFrameIndex"] - shown["counter"]) / rate - rtt / 2)
        time.sleep(0.01)
    # A faster poll for the page's own frame rate.
    counters = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const img = document.getElementById('preview');
        const c = document.createElement('canvas'); c.width = img.naturalWidth; c.height = img.naturalHeight;
        const g = c.getContext('2d'); const scale = img.naturalWidth / 1280; const seen = new Set();
        const start = performance.now();
        function tick() {
          g.drawImage(img, 0, 0);
          let counter = 0;
          for (let bit = 0; bit < 16; bit++) {
            const p = g.getImageData(Math.floor((bit * 16 + 8) * scale), Math.floor(8 * scale), 1, 1).data;
            if (p[0] + p[1] + p[2] > 384) counter |= (1 << bit);
          }
          seen.add(counter);
          if (performance.now() - start < 2000) requestAnimationFrame(tick); else done(seen.size);
        }
        tick();
    """)
    lags.sort()
    return {"ready": bool(ready), "first": first, "second": second, "distinctFramesIn2s": counters,
            "latencyMedian": lags[len(lags) // 2] if lags else None, "samples": len(seen)}


def filter_(driver, base, name):
    driver.get(base + "/")
    wait_for_preview(driver)
    wait(driver, "return document.getElementById('filter-select').options.length > 1")
    time.sleep(0.3)
    before = sample(driver)
    Select(driver.find_element(By.ID, "filter-select")).select_by_value(name)
    time.sleep(1.0)
    after = sample(driver)
    label = driver.find_element(By.ID, "hud-filter").text
    state = api(driver, "/api/state")
    driver.find_element(By.ID, "random-filter").click()
    random_label = wait(driver, "const t = document.getElementById('hud-filter').textContent; return t !== arguments[0] ? t : null;"
                        .replace("arguments[0]", json.dumps(label)), timeout=5)
    random_state = api(driver, "/api/state")
    return {"before": before, "after": after, "label": label, "filter": state.get("filter"),
            "randomLabel": random_label, "randomFilter": random_state.get("filter")}


def photo(driver, base):
    driver.get(base + "/")
    wait_for_preview(driver)
    shutter(driver, "photo").click()
    shown = wait(driver, "const d = document.getElementById('photo-dialog'); const i = document.getElementById('photo-result');"
                         "return d.open && i.complete && i.naturalWidth > 0 ? [i.naturalWidth, i.naturalHeight, i.src] : null;")
    caption = driver.find_element(By.ID, "photo-caption").text
    driver.get(base + "/gallery")
    cards = wait(driver, "const cards = [...document.querySelectorAll('article.item[data-kind=photo]')];"
                         "return cards.length && cards.every(c => c.querySelector('img').naturalWidth > 0) ?"
                         " cards.map(c => c.dataset.name) : null;")
    return {"dialog": shown, "caption": caption, "gallery": cards or []}


def delete(driver, base, name):
    """Deletes item NAME in the gallery as a user would: its button, then the confirmation."""
    driver.get(base + "/gallery")
    wait(driver, "return document.querySelectorAll('article.item').length > 0")
    driver.execute_script("[...document.querySelectorAll('article.item')].find(a => a.dataset.name === arguments[0])"
                          ".querySelector('button.delete').click()", name)
    asked = wait(driver, "return document.getElementById('confirm').open ? document.getElementById('confirm-name').textContent : null")
    driver.find_element(By.ID, "confirm-delete").click()
    left = wait(driver, "return [...document.querySelectorAll('article.item')].every(a => a.dataset.name !== arguments[0]) ?"
                        " document.getElementById('gallery-summary').textContent : null".replace("arguments[0]", json.dumps(name)))
    # A photo taken elsewhere (here, a request from the page's own script) appears without a reload.
    driver.execute_script("window.reelMarker = 1; fetch('/api/photo', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{}'})")
    live = wait(driver, "return window.reelMarker === 1 && document.querySelectorAll('article.item[data-kind=photo]').length === 1")
    return {"asked": asked, "summary": left, "appearedLive": bool(live)}


def record(driver, base, holds):
    driver.get(base + "/")
    wait_for_preview(driver)
    wait(driver, "return document.getElementById('filter-select').options.length > 1")
    button = shutter(driver, "video")
    # The time each hold lasted as the page saw it: button down to button up.
    driver.execute_script("""
        window.reelHolds = [];
        const b = document.getElementById('shutter');
        b.addEventListener('pointerdown', () => { window.reelDown = performance.now(); console.warn('down ' + Date.now()); });
        for (const e of ['pointercancel', 'lostpointercapture', 'pointerleave', 'pointerout', 'gotpointercapture']) b.addEventListener(e, () => console.warn(e + ' ' + Date.now()));
        b.addEventListener('pointerup', () => { console.warn('up ' + Date.now()); window.reelHolds.push((performance.now() - window.reelDown) / 1000); });
    """)
    held = []
    for seconds in holds:
        chain = ActionChains(driver)
        chain.click_and_hold(button).perform()
        start = time.time()
        time.sleep(seconds)
        ActionChains(driver).release(button).perform()
        held.append(time.time() - start)
        time.sleep(0.5)
    status = api(driver, "/api/status")
    page_held = driver.execute_script("return window.reelHolds")
    wait(driver, "return !document.getElementById('save').disabled", timeout=5)
    driver.find_element(By.ID, "save").click()
    played = wait(driver, """
        const d = document.getElementById('video-dialog'); const v = document.getElementById('video-result');
        return d.open && v.readyState >= 3 && v.currentTime > 0.3 ?
          {duration: v.duration, currentTime: v.currentTime, width: v.videoWidth, height: v.videoHeight, src: v.src} : null;
    """, timeout=30)
    error = driver.execute_script("const v = document.getElementById('video-result'); return v.error ? v.error.code : null;")
    return {"held": page_held, "driverHeld": held, "status": status, "played": played, "error": error,
            "caption": driver.find_element(By.ID, "video-caption").text}


def focus(driver, base, x, y):
    driver.get(base + "/")
    wait_for_preview(driver)
    wait(driver, "return document.getElementById('filter-select').options.length > 1")
    image = driver.find_element(By.ID, "preview")
    box = driver.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.width, r.height];", image)
    ActionChains(driver).move_to_element_with_offset(image, int((x - 0.5) * box[0]), int((y - 0.5) * box[1])).click().perform()
    answered = wait(driver, "return document.body.dataset.focus || null", timeout=5)
    cursor = driver.execute_script("const c = document.getElementById('focus-cursor');"
                                   "return {shown: c.classList.contains('show'), left: c.style.left, top: c.style.top};")
    state = api(driver, "/api/state")
    # What the camera cannot do is drawn switched off, with the reason under it.
    off = driver.execute_script("""
        return [...document.querySelectorAll('.control.off')].map(c => ({
            id: c.id, disabled: [...c.querySelectorAll('input, button, select')].every(e => e.disabled),
            reason: (c.querySelector('.why') || {}).textContent || null}));
    """)
    return {"answered": answered, "cursor": cursor, "state": state, "off": off}


def compose(driver, base, names):
    driver.get(base + "/compose")
    wait(driver, "return document.querySelectorAll('#clip-list .clip').length >= 2")
    for name in names:
        driver.execute_script("[...document.querySelectorAll('#clip-list .clip')].find(c => c.dataset.name === arguments[0])"
                              ".querySelector('button.add').click();", name)
    Select(driver.find_element(By.ID, "transition")).select_by_value("dissolve")
    Select(driver.find_element(By.ID, "sticker")).select_by_value("text")
    Select(driver.find_element(By.ID, "compose-preset")).select_by_value("640x480")
    order = driver.execute_script("return [...document.querySelectorAll('#order .clip')].map(c => c.dataset.name)")
    driver.find_element(By.ID, "export").click()
    progress = []
    deadline = time.time() + 90
    played = None
    while time.time() < deadline:
        fill = driver.execute_script("return document.getElementById('export-fill').style.width")
        if fill and (not progress or progress[-1] != fill):
            progress.append(fill)
        played = driver.execute_script("""
            const v = document.getElementById('result-video');
            return !document.getElementById('result').hidden && v.readyState >= 3 && v.currentTime > 0.3 ?
              {duration: v.duration, currentTime: v.currentTime, width: v.videoWidth, height: v.videoHeight, src: v.src} : null;
        """)
        if played:
            break
        time.sleep(0.1)
    status = driver.find_element(By.ID, "export-status").text
    return {"order": order, "progress": progress, "played": played, "status": status}


def screens(driver, base, folder):
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for label, width, height, mobile in (("desktop", 1440, 900, False), ("phone", 390, 844, True)):
        size(driver, width, height, mobile)
        for page in ("camera", "gallery", "compose"):
            driver.get(base + ("/" if page == "camera" else "/" + page))
            if page == "camera":
                wait_for_preview(driver)
                wait(driver, "return document.getElementById('filter-select').options.length > 1")
            elif page == "gallery":
                wait(driver, "return document.getElementById('gallery-summary').textContent !== 'Loading…' &&"
                             " [...document.querySelectorAll('#grid img')].every(i => i.complete)")
            else:
                wait(driver, "return document.getElementById('transition').options.length > 0 &&"
                             " [...document.querySelectorAll('#clip-list img')].every(i => i.complete)")
                # A composition under way to look at: every clip in the order.
                driver.execute_script("for (const b of document.querySelectorAll('#clip-list button.add')) b.click();")
            time.sleep(0.6)
            if page == "camera":
                camera_states(driver, folder, label, written)
            path = folder / f"{page}-{label}.png"
            if mobile:
                # The whole page, as a phone would scroll through it.
                height_px = driver.execute_script("return Math.max(document.documentElement.scrollHeight, 844)")
                size(driver, width, min(int(height_px), 3000), True)
                time.sleep(0.3)
            driver.save_screenshot(str(path))
            if mobile:
                size(driver, width, height, True)
            written.append(str(path))
    return {"screenshots": written}


def camera_states(driver, folder, label, written):
    """The camera page while recording, and its photo and review dialogs."""
    button = shutter(driver, "video")
    ActionChains(driver).click_and_hold(button).perform()
    time.sleep(1.2)
    path = folder / f"camera-recording-{label}.png"
    driver.save_screenshot(str(path))
    written.append(str(path))
    ActionChains(driver).release(button).perform()
    wait(driver, "return !document.getElementById('save').disabled", timeout=5)
    driver.find_element(By.ID, "save").click()
    wait(driver, "const v = document.getElementById('video-result');"
                 "return document.getElementById('video-dialog').open && v.readyState >= 3", timeout=30)
    time.sleep(0.5)
    path = folder / f"camera-review-{label}.png"
    driver.save_screenshot(str(path))
    written.append(str(path))
    driver.execute_script("document.getElementById('video-dialog').close()")
    shutter(driver, "photo").click()
    wait(driver, "const i = document.getElementById('photo-result');"
                 "return document.getElementById('photo-dialog').open && i.complete && i.naturalWidth > 0", timeout=10)
    time.sleep(0.4)
    path = folder / f"camera-photo-{label}.png"
    driver.save_screenshot(str(path))
    written.append(str(path))
    driver.execute_script("document.getElementById('photo-dialog').close()")
    time.sleep(0.3)


def token(driver, base):
    driver.get(base)
    ready = wait_for_preview(driver)
    return {"url": driver.current_url, "preview": bool(ready), "title": driver.title}


def main():
    scenario, base = sys.argv[1], sys.argv[2].rstrip("/")
    rest = sys.argv[3:]
    driver = browser()
    try:
        if scenario == "preview":
            result = preview(driver, base)
        elif scenario == "filter":
            result = filter_(driver, base, rest[0])
        elif scenario == "photo":
            result = photo(driver, base)
        elif scenario == "delete":
            result = delete(driver, base, rest[0])
        elif scenario == "record":
            result = record(driver, base, [float(s) for s in rest])
        elif scenario == "focus":
            result = focus(driver, base, float(rest[0]), float(rest[1]))
        elif scenario == "compose":
            result = compose(driver, base, rest)
        elif scenario == "screens":
            result = screens(driver, base, rest[0])
        elif scenario == "token":
            result = token(driver, sys.argv[2])
        else:
            raise SystemExit(f"studio.py: unknown scenario '{scenario}'")
        entries = driver.get_log("browser")
        logs = [entry["message"] for entry in entries if entry.get("level") == "SEVERE"]
        result["consoleWarnings"] = [entry["message"] for entry in entries if entry.get("level") == "WARNING"]
        result["consoleErrors"] = logs
        print(json.dumps(result))
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
