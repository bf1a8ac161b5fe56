#!/usr/bin/python3
"""Reel Studio 2.0's browser checks (issue 18): one truth for every page, a recording that
belongs to its press, exports that outlive their page. Two pages are two headless
Chromium browsers, as two people (or a phone and a laptop) would have them.

Usage: studio2.py SCENARIO BASE_URL [ARGUMENTS...]

Scenarios (each prints one JSON object on its last line):
  zoom BASE          drags the zoom slider to 3x and then keys it left (defect 1)
  keys BASE          two arrow-key presses on the ISO slider: focus stays, both reach the camera (defect 2)
  twotabs BASE       a filter and the torch chosen in one page show in the other (defect 5)
  taps BASE N        N quick taps on record (defect 3)
  reload BASE        reloads the page mid-recording, then records again (defect 4)
  steal BASE         another page presses and lets go while this one records (defect 7)
  limit BASE         holds past the limit with a second page open (defect 6)
  export BASE A B    exports A and B at phone size, leaves Compose, comes back (defects 8, 9)
  narrow BASE        the camera's buttons and every page at 320 and 250 px wide (defect 11)
  phonecompose BASE  the compose rows at 390 px (defect 10)
  words BASE         the preset labels, and what turning slow motion on says (defects 12, 13)
  gone BASE PID      stops the studio (PID) under the page: what a photo and the picture say (defect 14)
  a11y BASE          roles, announcements, focus after the photo dialog, Cut's length (defect 15)
  gallery BASE       the viewer's previous/next, keys and swipe; a delete undone (Deliver 5)
  screens BASE DIR   camera, recording, review, gallery and compose at 320, 390 and 1366 px wide

Runs Debian's chromium through /usr/bin/chromedriver, so nothing is downloaded.
"""
import json
import os
import pathlib
import sys
import time
import urllib.request

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from studio import browser, size, wait, wait_for_preview  # noqa: E402

BASE = ""


def get(path):
    with urllib.request.urlopen(BASE + path, timeout=10) as response:
        return json.loads(response.read())


def post(path, body):
    request = urllib.request.Request(BASE + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=20) as response:
        return json.loads(response.read())


def camera(driver):
    driver.get(BASE + "/")
    wait_for_preview(driver)
    wait(driver, "return document.getElementById('filter-select').options.length > 1 &&"
                 " document.querySelectorAll('#controls input[type=range]').length > 0")
    time.sleep(0.3)


def slider(driver, label):
    return driver.execute_script(
        "return [...document.querySelectorAll('#controls .control')].find(r => r.querySelector('.head span').textContent"
        " .startsWith(arguments[0])).querySelector('input[type=range]')", label)


def control(cid):
    return next(c for c in get("/api/state")["controls"] if c["id"] == cid)


def toasts(driver):
    return driver.execute_script("return window.reelToasts || []")


TOAST_WATCH = """
window.reelToasts = [];
new MutationObserver(() => { const t = document.getElementById('toast');
  if (t.className.includes('show')) window.reelToasts.push(t.textContent); })
  .observe(document.getElementById('toast'), {attributes: true, childList: true, characterData: true, subtree: true});
"""


def zoom(driver):
    camera(driver)
    knob = slider(driver, "Zoom")
    width = knob.size["width"]
    # A drag from the left end to the right end, as a finger would.
    ActionChains(driver).move_to_element_with_offset(knob, -width // 2 + 4, 0).click_and_hold() \
        .move_by_offset(width // 2, 0).move_by_offset(width // 2 - 6, 0).release().perform()
    time.sleep(1.5)
    # The zoom slider as the page shows it now (a page that rebuilt its controls has a new one).
    shown = slider(driver, "Zoom")
    try:
        same = driver.execute_script("return arguments[0].isConnected", knob)
    except StaleElementReferenceException:
        same = False
    after_drag = {"slider": float(shown.get_attribute("value")), "camera": control("zoom")["value"], "sameElement": same,
                  "output": driver.execute_script("return arguments[0].closest('.control').querySelector('output').textContent", shown)}
    focused = driver.execute_script("return document.activeElement === arguments[0]", shown)
    for _ in range(4):
        ActionChains(driver).send_keys(Keys.ARROW_LEFT).perform()
        time.sleep(0.15)
    time.sleep(1.5)
    after_keys = {"slider": float(slider(driver, "Zoom").get_attribute("value")), "camera": control("zoom")["value"]}
    return {"afterDrag": after_drag, "focusedAfterDrag": focused, "afterKeys": after_keys}


def keys(driver):
    camera(driver)
    knob = slider(driver, "ISO")
    driver.execute_script("arguments[0].focus(); window.reelIso = arguments[0];", knob)
    start = control("iso")["value"]
    ActionChains(driver).send_keys(Keys.ARROW_RIGHT).perform()
    time.sleep(1.0)
    first = control("iso")["value"]
    kept = driver.execute_script("return document.activeElement === window.reelIso")
    ActionChains(driver).send_keys(Keys.ARROW_RIGHT).perform()
    time.sleep(1.0)
    second = control("iso")["value"]
    kept_again = driver.execute_script("return document.activeElement === window.reelIso")
    return {"iso": [start, first, second], "focusKept": [kept, kept_again],
            "active": driver.execute_script("return document.activeElement.tagName + '#' + document.activeElement.id")}


WATCH_SHOWN = """
window.reelShown = {};
const mark = (key, test) => new MutationObserver(() => { if (!window.reelShown[key] && test()) window.reelShown[key] = Date.now(); })
  .observe(document.body, {subtree: true, childList: true, characterData: true, attributes: true});
mark('filter', () => document.getElementById('hud-filter').textContent === 'Mono');
mark('torch', () => document.getElementById('control-torch-input').getAttribute('aria-checked') === 'true');
mark('preset', () => document.getElementById('preset-select').value === '640x480');
mark('zoom', () => document.getElementById('control-zoom-output').textContent === '2.0×');
"""


def twotabs(a, b):
    """Changes in page A (and through the API) and when page B shows them, both by the machine's clock."""
    camera(a)
    camera(b)
    b.execute_script(WATCH_SHOWN)
    a.execute_script("""window.reelDone = {};
        document.getElementById('filter-select').addEventListener('change', () => { window.reelDone.filter = Date.now(); });
        document.getElementById('control-torch-input').addEventListener('click', () => { window.reelDone.torch = Date.now(); });
        document.querySelector(".chip[data-zoom='2']").addEventListener('click', () => { window.reelDone.zoom = Date.now(); });""")
    Select(a.find_element(By.ID, "filter-select")).select_by_value("PhotoEffectMono")
    wait(b, "return window.reelShown.filter", timeout=5, step=0.02)
    a.find_element(By.ID, "control-torch-input").click()
    wait(b, "return window.reelShown.torch", timeout=5, step=0.02)
    # A change from outside any page (the API, as another program would) shows in both.
    posted = time.time() * 1000
    post("/api/preset", {"id": "640x480"})
    wait(b, "return window.reelShown.preset", timeout=5, step=0.02)
    # The 2x chip on one page's picture: the other page's zoom slider follows.
    a.find_element(By.CSS_SELECTOR, ".chip[data-zoom='2']").click()
    wait(b, "return window.reelShown.zoom", timeout=5, step=0.02)
    done = a.execute_script("return window.reelDone")
    done["preset"] = posted
    shown = b.execute_script("return window.reelShown")
    delays = {key: (shown[key] - done[key]) / 1000 if key in shown and key in done else None for key in ("filter", "torch", "preset", "zoom")}
    return {"delays": delays, "camera": get("/api/state")["filter"],
            "chipPressed": b.execute_script("return document.querySelector(\".chip[data-zoom='2']\").getAttribute('aria-pressed')")}


def taps(driver, count):
    camera(driver)
    driver.execute_script(TOAST_WATCH)
    button = driver.find_element(By.ID, "record")
    for _ in range(count):
        ActionChains(driver).click(button).perform()
        time.sleep(0.25)
    # The studio settles (a loaded machine finishes a segment's file late), then is judged.
    deadline = time.time() + 10
    while time.time() < deadline and get("/api/status")["recording"]:
        time.sleep(0.1)
    time.sleep(0.5)
    return {"status": get("/api/status"), "toasts": toasts(driver)}


def hold(driver, seconds):
    button = driver.find_element(By.ID, "record")
    ActionChains(driver).click_and_hold(button).perform()
    time.sleep(seconds)
    ActionChains(driver).release(button).perform()


def reload(driver):
    camera(driver)
    button = driver.find_element(By.ID, "record")
    ActionChains(driver).click_and_hold(button).perform()
    pressed = time.time()
    time.sleep(1.0)
    before = get("/api/status")["recording"]
    reloaded = time.time()
    held_before = reloaded - pressed
    driver.execute_script("location.reload()")
    stopped = None
    while time.time() - reloaded < 10:
        if not get("/api/status")["recording"]:
            stopped = time.time() - reloaded
            break
        time.sleep(0.02)
    ActionChains(driver).reset_actions()
    camera(driver)
    hold(driver, 1.0)
    time.sleep(0.5)
    after = get("/api/status")
    deadline = time.time() + 10
    while time.time() < deadline and get("/api/status")["recording"]:
        time.sleep(0.1)
    time.sleep(2.0)
    later = get("/api/status")
    return {"recordingBefore": before, "stoppedAfter": stopped, "heldBeforeReload": held_before, "after": after, "later": later}


def steal(a, b):
    camera(a)
    camera(b)
    button = a.find_element(By.ID, "record")
    ActionChains(a).click_and_hold(button).perform()
    time.sleep(0.8)
    other = b.find_element(By.ID, "record")
    b_disabled = other.get_attribute("disabled") is not None
    # The other page's press and release: its button as a person would, then its own
    # script's requests (as a page whose button was not yet switched off would send them).
    ActionChains(b).click_and_hold(other).perform()
    time.sleep(0.6)
    ActionChains(b).release(other).perform()
    b.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const page = window.Studio && Studio.page;
        const post = (path) => fetch(path, {method: 'POST', headers: {'Content-Type': 'application/json'},
                                            body: JSON.stringify({page, press: 99})});
        post('/api/segments/start').then(() => new Promise((r) => setTimeout(r, 600)))
          .then(() => post('/api/segments/pause')).then(() => done(), () => done());
    """)
    time.sleep(2.5)
    during = get("/api/status")
    held_look = a.execute_script("return document.getElementById('record').classList.contains('held')")
    ActionChains(a).release(button).perform()
    released = time.time()
    stopped = None
    while time.time() - released < 5:
        if not get("/api/status")["recording"]:
            stopped = time.time() - released
            break
        time.sleep(0.05)
    return {"otherButtonDisabled": b_disabled, "during": during, "stillLooksHeld": held_look, "stoppedAfterRelease": stopped,
            "after": get("/api/status")}


def limit(a, b):
    post("/api/preset", {"id": "640x480"})
    camera(a)
    camera(b)
    for d in (a, b):
        d.execute_script(TOAST_WATCH)
    limit_seconds = get("/api/state")["segmentLimit"]
    button = a.find_element(By.ID, "record")
    ActionChains(a).click_and_hold(button).perform()
    time.sleep(limit_seconds + 1.0)
    review = wait(a, "const d = document.getElementById('video-dialog'); const v = document.getElementById('video-result');"
                     "return d.open && v.readyState >= 1 ? v.duration : null", timeout=30)
    ActionChains(a).release(button).perform()
    time.sleep(1.5)
    other = b.execute_script("return document.getElementById('video-dialog').open")
    return {"review": review, "otherReview": other, "toastsA": toasts(a), "toastsB": toasts(b), "status": get("/api/status"),
            "library": [i["name"] for i in get("/api/library")]}


def export(driver, names):
    size(driver, 390, 844, True)
    driver.get(BASE + "/compose")
    wait(driver, "return document.querySelectorAll('#clip-list .clip').length >= 2")
    for name in names:
        driver.execute_script("[...document.querySelectorAll('#clip-list .clip')].find(c => c.dataset.name === arguments[0])"
                              ".querySelector('button.add').click();", name)
    Select(driver.find_element(By.ID, "compose-preset")).select_by_value("1920x1080")
    driver.find_element(By.ID, "export").click()
    time.sleep(0.8)
    driver.get(BASE + "/gallery")
    time.sleep(0.8)
    driver.get(BASE + "/compose")
    back = wait(driver, "return document.querySelectorAll('#clip-list .clip').length >= 2", timeout=10)
    time.sleep(0.8)
    seen = {"status": driver.find_element(By.ID, "export-status").text,
            "order": driver.execute_script("return [...document.querySelectorAll('#order .clip')].map(c => c.dataset.name)"),
            "exportDisabled": driver.find_element(By.ID, "export").get_attribute("disabled") is not None,
            "job": get("/api/compose/job")["state"]}
    result = wait(driver, "const v = document.getElementById('result-video');"
                          "return !document.getElementById('result').hidden && v.readyState >= 1 ? v.src : null", timeout=90)
    time.sleep(1.5)
    shown = driver.execute_script("""
        const r = document.getElementById('result').getBoundingClientRect(); const v = document.getElementById('result-video');
        return {top: r.top, bottom: r.bottom, viewport: innerHeight, paused: v.paused, muted: v.muted, currentTime: v.currentTime,
                status: document.getElementById('export-status').textContent};
    """)
    return {"back": bool(back), "seen": seen, "result": result, "shown": shown}


def narrow(driver):
    """Every camera button on screen and no sideways scrolling, at 320 and 250 px (WCAG 1.4.10)."""
    found = {}
    for width, height in ((320, 640), (250, 600)):
        size(driver, width, height, True)
        camera(driver)
        found[str(width)] = driver.execute_script("""
            const out = {scroll: document.documentElement.scrollWidth - innerWidth, buttons: {}};
            for (const id of ['undo', 'reset', 'photo', 'record', 'save']) {
              const r = document.getElementById(id).getBoundingClientRect();
              out.buttons[id] = {left: r.left, right: r.right, inside: r.left >= 0 && r.right <= innerWidth};
            }
            return out;""")
        for page in ("gallery", "compose"):
            driver.get(BASE + "/" + page)
            time.sleep(1.0)
            found[f"{page}-{width}"] = driver.execute_script("return document.documentElement.scrollWidth - innerWidth")
    return found


def phonecompose(driver):
    size(driver, 390, 844, True)
    driver.get(BASE + "/compose")
    wait(driver, "return document.querySelectorAll('#clip-list .clip').length >= 2")
    driver.execute_script("for (const b of document.querySelectorAll('#clip-list button.add')) b.click();")
    time.sleep(0.5)
    rows = driver.execute_script("""
        const overlap = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
        return [...document.querySelectorAll('#order .clip, #clip-list .clip')].map(row => {
          const name = row.querySelector('.name').getBoundingClientRect(), sub = row.querySelector('.sub').getBoundingClientRect();
          const buttons = row.querySelector('.buttons').getBoundingClientRect();
          return {name: row.dataset.name, nameWidth: name.width, subWidth: sub.width,
                  overlaps: overlap(name, buttons) || overlap(sub, buttons), right: buttons.right, width: innerWidth};
        });""")
    return {"rows": rows}


def words(driver):
    camera(driver)
    driver.execute_script(TOAST_WATCH)
    labels = driver.execute_script("return [...document.getElementById('preset-select').options].map(o => o.textContent)")
    toggle = driver.execute_script("return [...document.querySelectorAll('#controls .control')].find(r => r.querySelector('.head span')"
                                   ".textContent.startsWith('Slow motion')).querySelector('button.switch')")
    toggle.click()
    time.sleep(2.0)
    preset = driver.execute_script("return document.getElementById('preset-select').selectedOptions[0].textContent")
    return {"labels": labels, "toasts": toasts(driver), "presetShown": preset}


def gone(driver, pid):
    """The studio stops under an open page: what the photo button and the picture say."""
    camera(driver)
    driver.execute_script(TOAST_WATCH)
    os.kill(int(pid), 2)
    time.sleep(2.5)
    driver.find_element(By.ID, "photo").click()
    time.sleep(1.0)
    message = wait(driver, "const m = document.getElementById('preview-message'); return !m.hidden ? m.textContent : null", timeout=5)
    return {"toasts": toasts(driver), "previewMessage": message}


def a11y(driver):
    camera(driver)
    found = driver.execute_script("""
        const v = document.getElementById('viewfinder'); const line = document.getElementById('status-line');
        return {viewfinderRole: v.getAttribute('role'), viewfinderName: v.getAttribute('aria-label'),
                figuresVisible: line.checkVisibility(), detailsOpen: document.getElementById('details').open,
                statusLine: line.textContent};""")
    button = driver.find_element(By.ID, "record")
    ActionChains(driver).click_and_hold(button).perform()
    found["announcedWhileRecording"] = wait(driver, "const t = document.getElementById('announce').textContent; return t || null", timeout=3)
    time.sleep(0.8)
    ActionChains(driver).release(button).perform()
    found["announcedAfter"] = wait(driver, "const t = document.getElementById('announce').textContent;"
                                           " return t.startsWith('Paused') ? t : null", timeout=4)
    driver.find_element(By.ID, "photo").click()
    wait(driver, "return document.getElementById('photo-dialog').open", timeout=10)
    time.sleep(0.3)
    driver.find_element(By.CSS_SELECTOR, "#photo-dialog [data-close]").click()
    time.sleep(0.3)
    found["focusAfterPhoto"] = driver.execute_script("return document.activeElement.id")
    driver.get(BASE + "/compose")
    wait(driver, "return document.getElementById('transition').options.length > 0")
    Select(driver.find_element(By.ID, "transition")).select_by_value("none")
    time.sleep(0.2)
    found["lengthShownForCut"] = driver.execute_script("const s = document.getElementById('transition-seconds');"
                                                       " return s.offsetParent !== null")
    found["exportBarRole"] = driver.execute_script("const f = document.getElementById('export-fill');"
                                                   " return (f.closest('[role]') || {getAttribute: () => null}).getAttribute('role')")
    return found


def gallery(driver):
    """The viewer's previous/next (buttons, keys, a swipe), and a delete undone (Deliver 5)."""
    driver.get(BASE + "/gallery")
    wait(driver, "return document.querySelectorAll('article.item').length >= 3")
    names = driver.execute_script("return [...document.querySelectorAll('article.item')].map(a => a.dataset.name)")
    titles = driver.execute_script("return [...document.querySelectorAll('article.item .name')].map(n => n.textContent)")
    driver.execute_script("document.querySelector('article.item .thumb').click()")
    wait(driver, "return document.getElementById('viewer').open")
    title = lambda: driver.find_element(By.ID, "viewer-title").text  # noqa: E731
    seen = [title()]
    driver.find_element(By.ID, "viewer-next").click()
    seen.append(title())
    driver.find_element(By.ID, "viewer-previous").click()
    seen.append(title())
    ActionChains(driver).send_keys(Keys.ARROW_RIGHT).perform()
    seen.append(title())
    driver.execute_script("""
        const m = document.getElementById('viewer-media');
        m.dispatchEvent(new PointerEvent('pointerdown', {bubbles: true, clientX: 300}));
        m.dispatchEvent(new PointerEvent('pointerup', {bubbles: true, clientX: 120}));""")
    seen.append(title())
    position = driver.find_element(By.ID, "viewer-position").text
    driver.find_element(By.CSS_SELECTOR, "#viewer [data-close]").click()
    victim = names[0]
    driver.execute_script("[...document.querySelectorAll('article.item')].find(a => a.dataset.name === arguments[0])"
                          ".querySelector('button.delete').click()", victim)
    wait(driver, "return document.getElementById('confirm').open")
    driver.find_element(By.ID, "confirm-delete").click()
    offered = wait(driver, "return !document.getElementById('undo-bar').hidden", timeout=5)
    gone = victim not in [i["name"] for i in get("/api/library")]
    driver.find_element(By.ID, "undo-delete").click()
    back = wait(driver, "return [...document.querySelectorAll('article.item')].some(a => a.dataset.name === arguments[0])"
                .replace("arguments[0]", json.dumps(victim)), timeout=5)
    return {"names": names, "titles": titles, "seen": seen, "position": position, "undoOffered": bool(offered),
            "goneAfterDelete": gone, "backInGrid": bool(back), "backInLibrary": victim in [i["name"] for i in get("/api/library")]}


def screens(driver, folder):
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []

    def shot(name):
        path = folder / name
        driver.save_screenshot(str(path))
        written.append(str(path))

    # Desktop first: going from phone emulation back to a desktop-sized page hung Chromium's renderer.
    for width, height, mobile in ((1366, 900, False), (390, 844, True), (320, 640, True)):
        size(driver, width, height, mobile)
        camera(driver)
        shot(f"v2-camera-{width}.png")
        button = driver.find_element(By.ID, "record")
        ActionChains(driver).click_and_hold(button).perform()
        time.sleep(1.2)
        shot(f"v2-recording-{width}.png")
        ActionChains(driver).release(button).perform()
        wait(driver, "return !document.getElementById('save').disabled", timeout=5)
        driver.find_element(By.ID, "save").click()
        wait(driver, "const v = document.getElementById('video-result');"
                     "return document.getElementById('video-dialog').open && v.readyState >= 3", timeout=30)
        time.sleep(0.5)
        shot(f"v2-review-{width}.png")
        driver.execute_script("document.getElementById('video-dialog').close()")
        driver.get(BASE + "/gallery")
        wait(driver, "return document.getElementById('gallery-summary').textContent !== 'Loading…' &&"
                     " [...document.querySelectorAll('#grid img')].every(i => i.complete)")
        time.sleep(0.5)
        shot(f"v2-gallery-{width}.png")
        driver.get(BASE + "/compose")
        wait(driver, "return document.getElementById('transition').options.length > 0 &&"
                     " document.querySelectorAll('#clip-list .clip').length > 0 &&"
                     " [...document.querySelectorAll('#clip-list img')].every(i => i.complete)")
        driver.execute_script("for (const b of [...document.querySelectorAll('#clip-list button.add')].slice(0, 3)) b.click();")
        time.sleep(0.5)
        if mobile:
            # The whole page, as a phone would scroll through it.
            tall = driver.execute_script("return Math.max(document.documentElement.scrollHeight, innerHeight)")
            size(driver, width, min(int(tall), 3000), True)
            time.sleep(0.3)
        shot(f"v2-compose-{width}.png")
        # Leave the page before the next width's emulation (Chromium's renderer hung on the
        # way from the tall phone compose page to a desktop-sized camera page otherwise).
        driver.get("about:blank")
        size(driver, width, height, mobile)
        overflow = driver.execute_script("return document.documentElement.scrollWidth - innerWidth")
        written.append(f"overflow-{width}:{overflow}")
    return {"screenshots": [w for w in written if not w.startswith("overflow")],
            "overflow": {w.split(":")[0]: int(w.split(":")[1]) for w in written if w.startswith("overflow")}}


def main():
    global BASE
    scenario, BASE = sys.argv[1], sys.argv[2].rstrip("/")
    rest = sys.argv[3:]
    two = scenario in ("twotabs", "steal", "limit")
    drivers = [browser(1366, 900)] + ([browser(1366, 900)] if two else [])
    try:
        if scenario == "zoom":
            result = zoom(drivers[0])
        elif scenario == "keys":
            result = keys(drivers[0])
        elif scenario == "twotabs":
            result = twotabs(*drivers)
        elif scenario == "taps":
            result = taps(drivers[0], int(rest[0]))
        elif scenario == "reload":
            result = reload(drivers[0])
        elif scenario == "steal":
            result = steal(*drivers)
        elif scenario == "limit":
            result = limit(*drivers)
        elif scenario == "export":
            result = export(drivers[0], rest)
        elif scenario == "narrow":
            result = narrow(drivers[0])
        elif scenario == "phonecompose":
            result = phonecompose(drivers[0])
        elif scenario == "words":
            result = words(drivers[0])
        elif scenario == "gone":
            result = gone(drivers[0], rest[0])
        elif scenario == "a11y":
            result = a11y(drivers[0])
        elif scenario == "gallery":
            result = gallery(drivers[0])
        elif scenario == "screens":
            result = screens(drivers[0], rest[0])
        else:
            raise SystemExit(f"studio2.py: unknown scenario '{scenario}'")
        result["consoleErrors"] = [e["message"] for d in drivers for e in d.get_log("browser") if e.get("level") == "SEVERE"]
        print(json.dumps(result))
    finally:
        for d in drivers:
            d.quit()


if __name__ == "__main__":
    main()
