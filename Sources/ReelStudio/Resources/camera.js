"use strict";
(() => {
  const { $, api, toast, hideToast, on, onOpen, page, duration, element, fill, filterLabel } = Studio;
  let state = null;
  let holding = false;
  let limit = null; // the studio's, from its state

  // The live preview: MJPEG in an <img>; on a lost connection, try again.
  const preview = $("preview");
  function startPreview() { preview.src = `/api/preview.mjpg?t=${Date.now()}`; }
  // A multipart picture fires no load event per part, so look for the first picture.
  // With the studio gone, say so rather than wait for a camera.
  setInterval(() => {
    const lost = document.body.dataset.live === "false";
    $("preview-message").textContent = lost ? "The studio is not answering: reconnecting…" : "Waiting for the camera…";
    $("preview-message").hidden = preview.naturalWidth > 0 && !lost;
  }, 500);
  preview.addEventListener("error", () => {
    $("preview-message").hidden = false;
    setTimeout(startPreview, 1500);
  });
  startPreview();

  // Every page shows the studio's state: it comes with each answer and as the `state`
  // event whenever anything changes (here, in another tab, from the command line). It is
  // drawn in place: a control keeps its element, so keyboard focus stays where it was.
  function render(next) {
    if (next.status) renderStatus(next.status);
    state = next;
    limit = state.segmentLimit;
    choices($("camera-select"), state.cameras.map((d) => ({ value: d.id, label: d.name })), state.camera);
    choices($("mic-select"), state.microphones.map((d) => ({ value: d.id, label: d.name })), state.microphone);
    choices($("preset-select"), state.presetChoices.map((p) => ({ value: p.id, label: p.label })), state.preset);
    choices($("filter-select"), state.filters.map((f) => ({ value: f, label: filterLabel(f) })), state.filter);
    $("hud-filter").textContent = filterLabel(state.filter);
    const single = state.cameras.length < 2;
    $("switch-camera").disabled = single;
    $("switch-reason").hidden = !single;
    $("switch-reason").textContent = single ? "This machine has one camera. To add a clip as a second one, start reel studio with --camera\u00a0file:CLIP.mp4." : "";
    renderControls(state.controls);
    renderChips();
  }

  // A picker's options are replaced only when they change; its value follows the state.
  function choices(select, options, current) {
    const key = JSON.stringify(options);
    if (select.dataset.options !== key) {
      fill(select, options, current);
      select.dataset.options = key;
    } else if (select.value !== current) {
      select.value = current;
    }
  }

  function control(id) { return (state && state.controls.find((c) => c.id === id)) || null; }

  // The rows are made once per camera (their kinds and limits); later states only set
  // values, labels and reasons. A slider being dragged, or with a change on its way,
  // keeps the value under the finger until the studio has answered.
  let controlsShape = null;
  const busy = {};
  function renderControls(controls) {
    const shown = controls.filter((c) => c.id !== "focus");
    const shape = JSON.stringify(shown.map((c) => [c.id, c.minimum, c.maximum, c.options]));
    const box = $("controls");
    if (shape !== controlsShape) {
      const focused = document.activeElement && box.contains(document.activeElement) ? document.activeElement.id : null;
      box.replaceChildren(...shown.map(makeControl));
      controlsShape = shape;
      if (focused && $(focused)) $(focused).focus();
    }
    for (const c of shown) updateControl(c);
  }

  function makeControl(c) {
    const row = element("div", { class: "control", id: `control-${c.id}` });
    const name = element("span", { class: "name", id: `control-${c.id}-name` });
    const head = element("div", { class: "head" }, [name]);
    row.append(head);
    if (c.minimum !== null && c.minimum !== undefined) {
      const output = element("output", { id: `control-${c.id}-output` });
      head.append(output);
      const slider = element("input", { type: "range", id: `control-${c.id}-input`, min: c.minimum, max: c.maximum,
        step: c.id === "zoom" ? 0.05 : 1, value: c.value ?? c.minimum, "aria-labelledby": `control-${c.id}-name` });
      slider.addEventListener("pointerdown", () => { busy[c.id] = (busy[c.id] || 0) + 1; slider.dataset.dragging = "true"; });
      const letGo = () => { if (slider.dataset.dragging) { delete slider.dataset.dragging; busy[c.id] -= 1; } };
      slider.addEventListener("input", () => { output.textContent = formatValue(c, Number(slider.value)); });
      slider.addEventListener("change", () => { send(c.id, { value: Number(slider.value) }); letGo(); });
      slider.addEventListener("pointerup", () => setTimeout(letGo, 0));
      row.append(slider);
    } else if (c.options) {
      const select = element("select", { id: `control-${c.id}-input`, "aria-labelledby": `control-${c.id}-name` });
      fill(select, c.options.map((o) => ({ value: o, label: o[0].toUpperCase() + o.slice(1) })), c.option);
      select.addEventListener("change", () => send(c.id, { option: select.value }));
      row.append(select);
    } else {
      const toggle = element("button", { type: "button", class: "switch", role: "switch", id: `control-${c.id}-input`,
        "aria-labelledby": `control-${c.id}-name`, "aria-checked": "false" });
      toggle.addEventListener("click", () => {
        const on = toggle.getAttribute("aria-checked") !== "true";
        toggle.setAttribute("aria-checked", on ? "true" : "false");
        send(c.id, { value: on ? 1 : 0 });
      });
      head.append(toggle);
    }
    row.append(element("p", { class: "why", id: `control-${c.id}-why`, hidden: true }));
    return row;
  }

  function updateControl(c) {
    const row = $(`control-${c.id}`), input = $(`control-${c.id}-input`), why = $(`control-${c.id}-why`);
    if (!row || !input) return;
    const off = !c.supported;
    row.classList.toggle("off", off);
    $(`control-${c.id}-name`).textContent = c.label;
    input.disabled = off;
    why.textContent = off && c.reason ? c.reason : "";
    why.hidden = !(off && c.reason);
    if (busy[c.id] > 0) return;
    if (input.type === "range") {
      const value = c.target ?? c.value ?? c.minimum;
      if (Number(input.value) !== value) input.value = value;
      $(`control-${c.id}-output`).textContent = formatValue(c, value);
    } else if (input.tagName === "SELECT") {
      if (input.value !== c.option) input.value = c.option;
    } else {
      input.setAttribute("aria-checked", c.value ? "true" : "false");
    }
  }

  function formatValue(c, value) {
    if (value === null || value === undefined) return "";
    return c.id === "zoom" ? `${Number(value).toFixed(1)}×` : `${Math.round(value)}`;
  }

  async function send(id, body) {
    busy[id] = (busy[id] || 0) + 1;
    let answer = null;
    try { answer = await api("/api/control", { method: "POST", body: { id, ...body } }); }
    catch (error) { toast(error.message, "error"); }
    busy[id] -= 1;
    if (answer) render(answer); else load();
    // Slow motion takes the fastest format's size: say so instead of switching the preset silently.
    if (answer && id === "slowMotion") {
      const preset = answer.presetChoices.find((p) => p.id === answer.preset);
      const label = preset ? preset.label.replace(/^Up to/, "up to") : answer.preset;
      toast(body.value ? `Slow motion on: the preset is now ${label}, the size its fastest frame rate allows` :
        `Slow motion off: the preset is back to ${label}`);
    }
  }

  let wasRecording = null;
  function renderStatus(s) {
    if (!s) return;
    $("rec-time").textContent = duration(s.recordedSeconds);
    $("rec-badge").classList.toggle("on", s.recording);
    $("segment-fill").style.width = `${Math.min(100, s.progress * 100)}%`;
    const marks = !limit ? [] : (s.segmentEnds || []).map((end) => element("i", { style: `left: ${Math.min(100, end / limit * 100)}%` }));
    $("segment-marks").replaceChildren(...marks);
    const none = s.segments === 0;
    // Another page's press is recording: this page's button waits for it.
    const elsewhere = s.recording && s.recordingPage !== page && !holding;
    record.disabled = elsewhere;
    record.setAttribute("aria-label", elsewhere ? "Another page is recording" : "Hold to record");
    $("undo").disabled = none || s.recording;
    $("reset").disabled = none || s.recording;
    $("save").disabled = none || s.recording;
    const parts = [`${Math.round(s.frameRate)} fps`, `${s.width}×${s.height}`, `${s.droppedFrames} dropped`,
      `preview ${s.previewFrames} frames, ${s.encodeMilliseconds.toFixed(1)} ms each`];
    // The figures are for developers, behind Details; errors are for everyone.
    $("status-line").textContent = parts.join(" · ");
    $("status-errors").textContent = (s.errors || []).join(" · ");
    $("status-errors").hidden = !(s.errors || []).length;
    // Recording starts and stops are announced to screen readers.
    if (wasRecording !== null && wasRecording !== s.recording) {
      $("announce").textContent = s.recording ? "Recording" : `Paused: ${duration(s.recordedSeconds)} recorded`;
    }
    wasRecording = s.recording;
  }

  async function load() {
    try { render(await api("/api/state")); } catch (error) { toast(error.message, "error"); }
  }

  async function choose(path, id) {
    try { render(await api(path, { method: "POST", body: { id } })); toast("Done"); }
    catch (error) { toast(error.message, "error"); load(); }
  }
  $("camera-select").addEventListener("change", (e) => choose("/api/camera", e.target.value));
  $("mic-select").addEventListener("change", (e) => choose("/api/microphone", e.target.value));
  $("preset-select").addEventListener("change", (e) => choose("/api/preset", e.target.value));
  $("filter-select").addEventListener("change", (e) => choose("/api/filter", e.target.value));
  $("random-filter").addEventListener("click", async () => {
    try {
      render(await api("/api/filter/random", { method: "POST", body: {} }));
      toast(`Filter: ${filterLabel(state.filter)}`);
    } catch (error) { toast(error.message, "error"); }
  });
  $("switch-camera").addEventListener("click", () => {
    const index = state.cameras.findIndex((d) => d.id === state.camera);
    const next = state.cameras[(index + 1) % state.cameras.length];
    choose("/api/camera", next.id);
  });

  // Tap to focus and expose: the point is sent as 0…1 of the picture shown.
  // Chips on the picture: zoom steps and the torch, drawn from the same state as the controls.
  for (const chip of document.querySelectorAll(".chip[data-zoom]")) {
    chip.addEventListener("click", (e) => { e.stopPropagation(); send("zoom", { value: Number(chip.dataset.zoom) }); });
  }
  $("torch-chip").addEventListener("click", (e) => {
    e.stopPropagation();
    send("torch", { value: $("torch-chip").getAttribute("aria-pressed") === "true" ? 0 : 1 });
  });
  function renderChips() {
    const zoom = control("zoom"), torch = control("torch");
    const factor = zoom ? (zoom.target ?? zoom.value ?? 1) : 1;
    for (const chip of document.querySelectorAll(".chip[data-zoom]")) {
      chip.hidden = !zoom || !zoom.supported || Number(chip.dataset.zoom) > zoom.maximum;
      chip.setAttribute("aria-pressed", Math.abs(factor - Number(chip.dataset.zoom)) < 0.05 ? "true" : "false");
    }
    $("torch-chip").hidden = !torch || !torch.supported;
    $("torch-chip").setAttribute("aria-pressed", torch && torch.value ? "true" : "false");
  }
  // The last shot's thumbnail leads to the gallery.
  async function lastShot() {
    try {
      const items = await api("/api/library");
      $("last-shot").hidden = items.length === 0;
      if (items.length) { $("last-shot-image").src = items[0].thumbnail; $("last-shot").title = items[0].name; }
    } catch (_) { /* the gallery button still leads there */ }
  }
  on("library", lastShot);
  lastShot();

  $("viewfinder").addEventListener("click", async (event) => {
    const box = preview.getBoundingClientRect();
    const natural = preview.naturalWidth && preview.naturalHeight ? preview.naturalWidth / preview.naturalHeight : 16 / 9;
    let width = box.width, height = box.width / natural;
    if (height > box.height) { height = box.height; width = height * natural; }
    const left = box.left + (box.width - width) / 2, top = box.top + (box.height - height) / 2;
    const x = (event.clientX - left) / width, y = (event.clientY - top) / height;
    if (x < 0 || x > 1 || y < 0 || y > 1) return;
    const cursor = $("focus-cursor");
    cursor.style.left = `${event.clientX - box.left}px`;
    cursor.style.top = `${event.clientY - box.top}px`;
    cursor.classList.remove("show");
    void cursor.offsetWidth;
    cursor.classList.add("show");
    const focus = control("focus");
    if (focus && !focus.supported) { toast(focus.reason, "error"); return; }
    try {
      const answer = await api("/api/focus", { method: "POST", body: { x, y, viewWidth: width, viewHeight: height } });
      document.body.dataset.focus = `${answer.x.toFixed(3)},${answer.y.toFixed(3)}`;
    } catch (error) { toast(error.message, "error"); }
  });

  // The photo shutter.
  $("photo").addEventListener("click", async () => {
    const button = $("photo");
    button.disabled = true;
    const flash = $("flash");
    flash.classList.remove("go");
    void flash.offsetWidth;
    flash.classList.add("go");
    try {
      const photo = await api("/api/photo", { method: "POST", body: {} });
      $("photo-result").src = photo.item.url;
      $("photo-caption").textContent = `${photo.item.name} · ${photo.item.width}×${photo.item.height} · saved to the library`;
      $("photo-dialog").showModal();
    } catch (error) { toast(error.message, "error"); }
    button.disabled = false;
  });

  // Hold to record, let go to pause. Each press has a number: the studio refuses a start
  // that arrives after its own release, and ends the segment only at this page's release.
  const record = $("record");
  let press = 0;
  let pressedAt = 0;
  async function hold(event) {
    if (event) event.preventDefault();
    if (holding || record.disabled) return;
    holding = true;
    press += 1;
    const mine = press;
    // The input's own time: a busy page may run this handler late.
    pressedAt = event && event.timeStamp ? event.timeStamp : performance.now();
    record.classList.add("held");
    try { renderStatus(await api("/api/segments/start", { method: "POST", body: { page, press: mine } })); }
    catch (error) {
      // A start refused because its release came first says nothing: the release says it.
      if (mine !== press || !holding) return;
      holding = false;
      record.classList.remove("held");
      toast(error.message.startsWith("another page") ? "Another page is recording; wait for it to let go." : error.message, "error");
    }
  }
  async function release(event) {
    if (!holding) return;
    holding = false;
    record.classList.remove("held");
    const held = ((event && event.timeStamp ? event.timeStamp : performance.now()) - pressedAt) / 1000;
    try {
      // How long the button was down, as the page saw it, decides a tap (requests may arrive late).
      const answer = await api("/api/segments/pause", { method: "POST", body: { page, press, held } });
      renderStatus(answer);
      if (answer.release === "tooShort" || (answer.release === "idle" && held < (state ? state.shortestPress : 0.3))) {
        toast("Hold to record: keep the button pressed while you film.");
      }
    } catch (error) { toast(error.message, "error"); }
  }
  record.addEventListener("pointerdown", (e) => { record.setPointerCapture(e.pointerId); hold(e); });
  record.addEventListener("pointerup", release);
  record.addEventListener("pointercancel", release);
  record.addEventListener("keydown", (e) => { if ((e.key === " " || e.key === "Enter") && !e.repeat) hold(e); });
  record.addEventListener("keyup", (e) => { if (e.key === " " || e.key === "Enter") release(); });
  record.addEventListener("contextmenu", (e) => e.preventDefault());
  // Leaving (reload, another page, closing the tab) lets go at once; the studio would also
  // notice this page's event stream closing.
  window.addEventListener("pagehide", () => {
    if (!holding) return;
    holding = false;
    api("/api/segments/pause", { method: "POST", body: { page, press, leaving: true }, keepalive: true }).catch(() => {});
  });

  $("undo").addEventListener("click", async () => {
    try { renderStatus(await api("/api/segments/undo", { method: "POST", body: {} })); toast("Removed the last segment"); }
    catch (error) { toast(error.message, "error"); }
  });
  $("reset").addEventListener("click", async () => {
    try { renderStatus(await api("/api/segments/reset", { method: "POST", body: {} })); toast("Segments deleted"); }
    catch (error) { toast(error.message, "error"); }
  });
  async function saveVideo() {
    const button = $("save");
    button.disabled = true;
    toast("Merging the segments…");
    try {
      const saved = await api("/api/segments/save", { method: "POST", body: {} });
      const video = $("video-result");
      video.src = saved.item.url;
      $("video-caption").textContent = `${saved.item.name} · ${duration(saved.item.duration)} · saved to the library`;
      hideToast();
      $("video-dialog").showModal();
      video.play().catch(() => {});
    } catch (error) { toast(error.message, "error"); }
    button.disabled = false;
  }
  $("save").addEventListener("click", saveVideo);
  $("video-dialog").addEventListener("close", () => { $("video-result").pause(); record.focus(); });
  // Closing the photo dialog returns to the shutter.
  $("photo-dialog").addEventListener("close", () => $("photo").focus());

  on("status", renderStatus);
  on("state", render);
  onOpen(load);
  // At the limit the recorder stops by itself; the page that was recording saves as if
  // Save were pressed (the others leave it to that page).
  on("limit", async (event) => {
    if (event.page !== page) return;
    holding = false;
    record.classList.remove("held");
    toast(`${event.seconds} seconds: saving your video…`);
    saveVideo();
  });
  load();
})();