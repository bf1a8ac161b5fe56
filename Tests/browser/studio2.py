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
  gallery BASE       the viewer's previous/next, keys and swipe; a delete undone (Deliver 5)
  keyboard BASE      defect 15 and Deliver 7: every control named (Chromium's computed name), reached by Tab, the shutter by keys,
                     Escape out of the review and the viewer with focus back on the opener, contrast (Deliver 7)
  meter BASE         the microphone meter through silence and then a tone played into the studio's
                     PulseAudio microphone (paplay; PULSE_SERVER in the environment)
  screens BASE DIR   camera, recording, review, gallery and compose at 320, 390 and 1366 px wide

Runs Debian's chromium through /usr/bin/chromedriver, so nothing is downloaded.
"""
import json
import os
import pathlib
import subprocess
import sys
import time
import urllib.request

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from studio import browser, shutter, size, wait, wait_for_preview  # noqa: E402

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
    button = shutter(driver, "video")
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
    """Holds the video shutter for `seconds`; returns how long it was held at most, from before
    the press was sent to after the release arrived (a loaded machine's browser adds to it)."""
    button = shutter(driver, "video")
    started = time.time()
    ActionChains(driver).click_and_hold(button).perform()
    time.sleep(seconds)
    ActionChains(driver).release(button).perform()
    return time.time() - started


def reload(driver):
    camera(driver)
    button = shutter(driver, "video")
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
    held_again = hold(driver, 1.0)
    time.sleep(0.5)
    after = get("/api/status")
    deadline = time.time() + 10
    while time.time() < deadline and get("/api/status")["recording"]:
        time.sleep(0.1)
    time.sleep(2.0)
    later = get("/api/status")
    return {"recordingBefore": before, "stoppedAfter": stopped, "heldBeforeReload": held_before, "heldAgain": held_again, "after": after,
            "later": later}


def steal(a, b):
    camera(a)
    camera(b)
    button = shutter(a, "video")
    ActionChains(a).click_and_hold(button).perform()
    time.sleep(0.8)
    other = shutter(b, "video")
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
    held_look = a.execute_script("return document.getElementById('shutter').classList.contains('held')")
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
    button = shutter(a, "video")
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
        shutter(driver, "video")
        found[str(width)] = driver.execute_script("""
            const out = {scroll: document.documentElement.scrollWidth - innerWidth, buttons: {}};
            for (const id of ['undo', 'reset', 'shutter', 'save', 'last-shot', 'mode-photo', 'mode-video']) {
              const r = document.getElementById(id).getBoundingClientRect();
              out.buttons[id] = {left: r.left, right: r.right, inside: r.left >= 0 && r.right <= innerWidth};
            }
            // The picture as drawn (contained in the viewfinder) and its middle 60 %: no chip or
            // badge on the picture may cover that.
            const img = document.getElementById('preview'), box = img.getBoundingClientRect();
            const ratio = img.naturalWidth / img.naturalHeight;
            let w = box.width, h = box.width / ratio;
            if (h > box.height) { h = box.height; w = h * ratio; }
            const x = box.left + (box.width - w) / 2, y = box.top + (box.height - h) / 2;
            const middle = {left: x + w * .2, right: x + w * .8, top: y + h * .2, bottom: y + h * .8};
            out.covering = [...document.querySelectorAll('#viewfinder .chip, #viewfinder .hud > *')]
              .filter(e => e.checkVisibility()).map(e => [e.id || e.textContent.trim(), e.getBoundingClientRect()])
              .filter(([, r]) => r.left < middle.right && middle.left < r.right && r.top < middle.bottom && middle.top < r.bottom)
              .map(([name]) => name);
            out.chips = document.querySelectorAll('#viewfinder .chip').length;
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
    live = driver.find_element(By.ID, "live-marker").text
    os.kill(int(pid), 2)
    time.sleep(2.5)
    shutter(driver, "photo").click()
    time.sleep(1.0)
    message = wait(driver, "const m = document.getElementById('preview-message'); return !m.hidden ? m.textContent : null", timeout=5)
    marker = wait(driver, "const m = document.getElementById('live-marker'); return m.dataset.live === 'lost' ? m.textContent : null", timeout=5)
    return {"toasts": toasts(driver), "previewMessage": message, "markerBefore": live, "markerAfter": marker}


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
    # A dense grid: columns at this desktop width, then at phone widths; titles whole and legible.
    density = {}
    for width, height, mobile in ((1366, 900, False), (390, 844, True), (320, 640, True)):
        size(driver, width, height, mobile)
        time.sleep(0.3)
        density[str(width)] = driver.execute_script("""
            const names = [...document.querySelectorAll('article.item .name')];
            return {columns: getComputedStyle(document.getElementById('grid')).gridTemplateColumns.split(' ').length,
                    titlesWhole: names.every(n => n.scrollWidth <= n.clientWidth + 1 && n.scrollHeight <= n.clientHeight + 1),
                    smallestFont: Math.min(...names.map(n => parseFloat(getComputedStyle(n).fontSize))),
                    scroll: document.documentElement.scrollWidth - innerWidth};""")
    return {"names": names, "titles": titles, "seen": seen, "position": position, "undoOffered": bool(offered),
            "goneAfterDelete": gone, "backInGrid": bool(back), "backInLibrary": victim in [i["name"] for i in get("/api/library")],
            "density": density}

# Everything a keyboard reaches or a pointer acts on, visible on the page.
INTERACTIVE = """
const all = [...document.querySelectorAll('a[href], button, select, input, textarea, summary, [tabindex]:not([tabindex="-1"]), [role=radio]')];
return all.filter(e => e.checkVisibility({visibilityProperty: true}) && !e.closest('dialog:not([open])') && !e.closest('[inert]'));
"""

# WCAG contrast of every visible text against what is behind it (solid backgrounds, blended up the tree).
CONTRAST = """
const parse = (c) => { const m = c.match(/rgba?\\(([^)]+)\\)/); if (!m) return [0, 0, 0, 0];
  const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
const lum = ([r, g, b]) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
const behind = (e) => { const layers = [];
  for (let n = e; n && n.nodeType === 1; n = n.parentElement) {
    const s = getComputedStyle(n); const c = parse(s.backgroundColor);
    if (n.tagName === 'IMG' || n.classList.contains('viewfinder')) { layers.push([0, 0, 0, 1]); break; }
    if (c[3] > 0) layers.push(c); if (c[3] >= 1) break; }
  let base = [14, 16, 20]; // the page's own background
  for (const [r, g, b, a] of layers.reverse()) base = [r * a + base[0] * (1 - a), g * a + base[1] * (1 - a), b * a + base[2] * (1 - a)];
  return base; };
const out = [];
for (const e of document.querySelectorAll('body *')) {
  if (!e.checkVisibility({opacityProperty: true, visibilityProperty: true}) || e.closest('[disabled], .off, dialog:not([open]), svg')) continue;
  const text = [...e.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent).join('').trim();
  if (!text) continue;
  const s = getComputedStyle(e); const fg = parse(s.color); const bg = behind(e);
  const f = [fg[0] * fg[3] + bg[0] * (1 - fg[3]), fg[1] * fg[3] + bg[1] * (1 - fg[3]), fg[2] * fg[3] + bg[2] * (1 - fg[3])];
  const [hi, lo] = [lum(f), lum(bg)].sort((a, b) => b - a);
  const ratio = (hi + 0.05) / (lo + 0.05);
  const large = parseFloat(s.fontSize) >= 24 || (parseFloat(s.fontSize) >= 18.66 && Number(s.fontWeight) >= 700);
  out.push({text: text.slice(0, 40), ratio: Math.round(ratio * 100) / 100, needed: large ? 3 : 4.5});
}
return out;
"""


def described(driver, element):
    return {"tag": element.tag_name, "id": element.get_attribute("id") or "", "role": element.aria_role,
            "name": (element.accessible_name or "").strip(), "text": (element.text or "")[:30]}


def tab_through(driver, limit=120):
    """Tab from the top of the page until focus comes round again; the elements focused, in order."""
    driver.execute_script("document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0);")
    body = driver.find_element(By.TAG_NAME, "body")
    driver.execute_script("arguments[0].setAttribute('tabindex', '-1'); arguments[0].focus(); arguments[0].removeAttribute('tabindex')", body)
    seen = []
    for _ in range(limit):
        ActionChains(driver).send_keys(Keys.TAB).perform()
        key = driver.execute_script("const e = document.activeElement; if (!e || e === document.body) return null;"
                                    " if (!e.dataset.reelKey) e.dataset.reelKey = String(Math.random()); return e.dataset.reelKey")
        if key is None or (seen and key == seen[0]):
            break
        seen.append(key)
    return seen


def names_and_tabs(driver):
    """Every control's computed name (Chromium's own), and whether Tab reaches it (a
    radio group counts once: its checked radio is the Tab stop, the arrow keys move in it)."""
    elements = driver.execute_script(INTERACTIVE)
    reached = set(tab_through(driver))
    facts = driver.execute_script("""
        return arguments[0].map(e => ({tag: e.tagName.toLowerCase(), id: e.id, text: e.textContent.trim().slice(0, 30),
          key: e.dataset.reelKey || null, disabled: e.disabled === true,
          group: e.getAttribute('role') === 'radio' ? [...e.closest('[role=radiogroup]').querySelectorAll('[role=radio]')]
            .filter(r => r.dataset.reelKey).map(r => r.dataset.reelKey) : []}));""", elements)
    out = []
    for element, fact in zip(elements, facts):
        out.append({"tag": fact["tag"], "id": fact["id"], "text": fact["text"], "name": (element.accessible_name or "").strip(),
                    "reached": fact["key"] in reached or any(k in reached for k in fact["group"]) or fact["disabled"]})
    return out


def keyboard(driver):
    """Deliver 7 from the keyboard, on the camera page, then the gallery's viewer."""
    found = {}
    camera(driver)
    wait(driver, "return document.querySelectorAll('#filter-strip [role=radio]').length > 1")
    found["camera"] = names_and_tabs(driver)
    found["cameraContrast"] = [c for c in driver.execute_script(CONTRAST) if c["ratio"] < c["needed"]]
    found["meter"] = driver.execute_script("const m = document.getElementById('mic-meter');"
                                           " return {role: m.getAttribute('role'), now: m.getAttribute('aria-valuenow')}")
    found["pictureRole"] = described(driver, driver.find_element(By.ID, "viewfinder"))
    found.update(driver.execute_script("""
        const line = document.getElementById('status-line');
        return {figuresVisible: line.checkVisibility(), detailsOpen: document.getElementById('details').open, statusLine: line.textContent};"""))
    found["previewName"] = driver.find_element(By.ID, "preview").accessible_name
    # Photo mode: Enter on the shutter takes a photo; Escape closes the dialog, focus comes back.
    shutter(driver, "photo")
    driver.execute_script("document.getElementById('shutter').focus()")
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    found["photoByEnter"] = bool(wait(driver, "return document.getElementById('photo-dialog').open", timeout=10))
    time.sleep(0.3)
    ActionChains(driver).send_keys(Keys.ESCAPE).perform()
    time.sleep(0.3)
    found["photoClosed"] = not driver.execute_script("return document.getElementById('photo-dialog').open")
    found["focusAfterPhoto"] = driver.execute_script("return document.activeElement.id")
    # Video mode: the arrow keys move along the mode switch; Space starts, the next Space pauses.
    driver.execute_script("document.getElementById('mode-photo').focus()")
    ActionChains(driver).send_keys(Keys.ARROW_RIGHT).perform()
    found["modeByArrow"] = driver.execute_script("return document.getElementById('mode-video').getAttribute('aria-checked') === 'true'"
                                                 " && document.activeElement.id === 'mode-video'")
    driver.execute_script("document.getElementById('shutter').focus()")
    before = driver.execute_script("return document.getElementById('announce').textContent")
    ActionChains(driver).send_keys(Keys.SPACE).perform()
    found["announcedStart"] = wait(driver, "const t = document.getElementById('announce').textContent;"
                                           " return t !== arguments[0] && t.startsWith('Recording') ? t : null".replace("arguments[0]", json.dumps(before)),
                                   timeout=4)
    found["pressedWhileRecording"] = driver.execute_script("return document.getElementById('shutter').getAttribute('aria-pressed')")
    time.sleep(1.0)
    ActionChains(driver).send_keys(Keys.SPACE).perform()
    found["announcedStop"] = wait(driver, "const t = document.getElementById('announce').textContent; return t.startsWith('Paused') ? t : null",
                                  timeout=4)
    time.sleep(0.5)
    found["segmentsByKeyboard"] = get("/api/status")["segments"]
    # Save from the keyboard: the review opens; Escape closes it and focus returns to the shutter.
    wait(driver, "return !document.getElementById('save').disabled", timeout=5)
    driver.execute_script("document.getElementById('save').focus()")
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    found["reviewOpened"] = bool(wait(driver, "return document.getElementById('video-dialog').open", timeout=30))
    time.sleep(0.3)
    found["reviewNames"] = [described(driver, e) for e in driver.find_elements(By.CSS_SELECTOR, "#video-dialog a, #video-dialog button, #video-dialog video")]
    ActionChains(driver).send_keys(Keys.ESCAPE).perform()
    time.sleep(0.3)
    found["focusAfterReview"] = driver.execute_script("return document.activeElement.id")
    # The gallery: names, Tab, and the viewer opened with Enter and closed with Escape.
    driver.get(BASE + "/gallery")
    wait(driver, "return document.querySelectorAll('article.item').length >= 2")
    found["gallery"] = names_and_tabs(driver)
    found["galleryContrast"] = [c for c in driver.execute_script(CONTRAST) if c["ratio"] < c["needed"]]
    opener = driver.find_elements(By.CSS_SELECTOR, "article.item .thumb")[1]
    driver.execute_script("arguments[0].focus()", opener)
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    found["viewerOpened"] = bool(wait(driver, "return document.getElementById('viewer').open", timeout=5))
    ActionChains(driver).send_keys(Keys.ESCAPE).perform()
    time.sleep(0.3)
    found["focusBackOnOpener"] = driver.execute_script("return document.activeElement === arguments[0] &&"
                                                       " !document.getElementById('viewer').open", opener)
    driver.get(BASE + "/compose")
    wait(driver, "return document.getElementById('transition').options.length > 0")
    found["compose"] = names_and_tabs(driver)
    found["composeContrast"] = [c for c in driver.execute_script(CONTRAST) if c["ratio"] < c["needed"]]
    # The export bar is a progressbar; "Cut" has no length to choose.
    Select(driver.find_element(By.ID, "transition")).select_by_value("none")
    time.sleep(0.2)
    found["lengthShownForCut"] = driver.execute_script("return document.getElementById('transition-seconds').offsetParent !== null")
    found["exportBarRole"] = driver.find_element(By.ID, "export-progress").aria_role
    return found


def meter(driver):
    """The meter on the camera page and the studio's level, through silence and then a tone."""
    camera(driver)

    def sample(seconds):
        levels, shown = [], []
        end = time.time() + seconds
        while time.time() < end:
            levels.append(get("/api/status").get("microphoneLevel"))
            shown.append(driver.execute_script("const m = document.getElementById('mic-meter');"
                                               " return [Number(m.getAttribute('aria-valuenow')), document.getElementById('mic-fill').style.width]"))
            time.sleep(0.1)
        return levels, shown

    quiet, quiet_shown = sample(1.5)
    tone = os.environ["REEL_TONE"]
    player = subprocess.Popen(["/usr/bin/paplay", f"--device={os.environ['REEL_SINK']}", tone])
    time.sleep(0.4)
    loud, loud_shown = sample(1.2)
    player.wait(timeout=15)
    return {"quiet": quiet, "quietShown": quiet_shown, "loud": loud, "loudShown": loud_shown, "played": player.returncode}


def screens(folder):
    """Each width in a browser of its own: one browser carried from width to width hung its
    renderer for 30 s on the next page load (a desktop page after the tall phone compose page,
    and a 320 px camera page after the 390 px compose page, in CI under load)."""
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written, overflow, errors = [], {}, []
    for width, height, mobile in ((1366, 900, False), (390, 844, True), (320, 640, True)):
        driver = browser(width, height, mobile)
        try:
            overflow[f"overflow-{width}"] = screens_at(driver, folder, written, width, mobile)
            errors += [e["message"] for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
        finally:
            driver.quit()
    return {"screenshots": written, "overflow": overflow, "widthErrors": errors}


def screens_at(driver, folder, written, width, mobile):
    """Camera, recording, review, gallery and compose at one width; returns how far the compose
    page scrolls sideways."""
    def shot(name):
        path = folder / name
        driver.save_screenshot(str(path))
        written.append(str(path))

    camera(driver)
    shot(f"v2-camera-{width}.png")
    button = shutter(driver, "video")
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
    # The composition's preview renders and loads before the picture is taken and the
    # page left (leaving with it half-loaded hung the next page's load for 30 s).
    wait(driver, "const p = document.getElementById('preview').dataset.state;"
                 " return (p === 'ready' && document.getElementById('preview-video').readyState >= 2) || p === 'failed'",
         timeout=60)
    time.sleep(0.5)
    if mobile:
        # The whole page, as a phone would scroll through it.
        tall = driver.execute_script("return Math.max(document.documentElement.scrollHeight, innerHeight)")
        size(driver, width, min(int(tall), 3000), True)
        time.sleep(0.3)
    shot(f"v2-compose-{width}.png")
    return driver.execute_script("return document.documentElement.scrollWidth - innerWidth")


def report(result, drivers):
    """Prints `result` as one JSON line, with the severe console errors of every page in it."""
    result["consoleErrors"] = result.pop("widthErrors", []) + [
        e["message"] for d in drivers for e in d.get_log("browser") if e.get("level") == "SEVERE"]
    print(json.dumps(result))


def main():
    global BASE
    scenario, BASE = sys.argv[1], sys.argv[2].rstrip("/")
    rest = sys.argv[3:]
    two = scenario in ("twotabs", "steal", "limit")
    # The screenshots open a browser for each width themselves.
    drivers = [] if scenario == "screens" else [browser(1366, 900)] + ([browser(1366, 900)] if two else [])
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
        elif scenario == "gallery":
            result = gallery(drivers[0])
        elif scenario == "keyboard":
            result = keyboard(drivers[0])
        elif scenario == "meter":
            result = meter(drivers[0])
        elif scenario == "screens":
            result = screens(rest[0])
        else:
            raise SystemExit(f"studio2.py: unknown scenario '{scenario}'")
        report(result, drivers)
    finally:
        for d in drivers:
            d.quit()


if __name__ == "__main__":
    main()
