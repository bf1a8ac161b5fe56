"use strict";
(() => {
  const { $, api, toast, hideToast, on, duration, element, fill, filterLabel } = Studio;
  let state = null;
  let holding = false;
  let limit = null; // the studio's, from its state

  // The live preview: MJPEG in an <img>; on a lost connection, try again.
  const preview = $("preview");
  function startPreview() { preview.src = `/api/preview.mjpg?t=${Date.now()}`; }
  // A multipart picture fires no load event per part, so look for the first picture.
  setInterval(() => { $("preview-message").hidden = preview.naturalWidth > 0; }, 500);
  preview.addEventListener("error", () => {
    $("preview-message").hidden = false;
    setTimeout(startPreview, 1500);
  });
  startPreview();

  function render(next) {
    state = next;
    limit = state.segmentLimit;
    fill($("camera-select"), state.cameras.map((d) => ({ value: d.id, label: d.name })), state.camera);
    fill($("mic-select"), state.microphones.map((d) => ({ value: d.id, label: d.name })), state.microphone);
    fill($("preset-select"), state.presets.map((p) => ({ value: p, label: p === "low" ? "low (480x360)" : p.replace("iFrame", "") })), state.preset);
    fill($("filter-select"), state.filters.map((f) => ({ value: f, label: filterLabel(f) })), state.filter);
    $("hud-filter").textContent = filterLabel(state.filter);
    const single = state.cameras.length < 2;
    $("switch-camera").disabled = single;
    $("switch-reason").hidden = !single;
    $("switch-reason").textContent = single ? "This machine has one camera. To add a clip as a second one, start reel studio with --camera\u00a0file:CLIP.mp4." : "";
    renderControls(state.controls);
    renderStatus(state.status);
  }

  function control(id) { return (state && state.controls.find((c) => c.id === id)) || null; }

  function renderControls(controls) {
    const box = $("controls");
    box.replaceChildren();
    for (const c of controls) {
      if (c.id === "focus") continue;
      const off = !c.supported;
      const row = element("div", { class: `control${off ? " off" : ""}`, id: `control-${c.id}` });
      const head = element("div", { class: "head" }, [element("span", { text: c.label })]);
      row.append(head);
      if (c.minimum !== null && c.minimum !== undefined) {
        const output = element("output", { text: formatValue(c, c.value) });
        head.append(output);
        const slider = element("input", { type: "range", min: c.minimum, max: c.maximum, step: c.id === "zoom" ? 0.05 : 1,
          value: c.value ?? c.minimum, disabled: off, "aria-label": c.label });
        slider.addEventListener("input", () => { output.textContent = formatValue(c, Number(slider.value)); });
        slider.addEventListener("change", () => send(c.id, { value: Number(slider.value) }));
        row.append(slider);
      } else if (c.options) {
        const select = element("select", { disabled: off, "aria-label": c.label });
        fill(select, c.options.map((o) => ({ value: o, label: o[0].toUpperCase() + o.slice(1) })), c.option);
        select.addEventListener("change", () => send(c.id, { option: select.value }));
        row.append(select);
      } else {
        const toggle = element("button", { type: "button", class: "switch", role: "switch", "aria-label": c.label,
          "aria-checked": c.value ? "true" : "false", disabled: off });
        toggle.addEventListener("click", () => send(c.id, { value: toggle.getAttribute("aria-checked") === "true" ? 0 : 1 }));
        head.append(toggle);
      }
      if (off && c.reason) row.append(element("p", { class: "why", text: c.reason }));
      box.append(row);
    }
  }

  function formatValue(c, value) {
    if (value === null || value === undefined) return "";
    return c.id === "zoom" ? `${Number(value).toFixed(1)}×` : `${Math.round(value)}`;
  }

  async function send(id, body) {
    try { render(await api("/api/control", { method: "POST", body: { id, ...body } })); }
    catch (error) { toast(error.message, "error"); load(); }
  }

  function renderStatus(s) {
    if (!s) return;
    $("rec-time").textContent = duration(s.recordedSeconds);
    $("rec-badge").classList.toggle("on", s.recording);
    $("segment-fill").style.width = `${Math.min(100, s.progress * 100)}%`;
    const marks = !limit ? [] : (s.segmentEnds || []).map((end) => element("i", { style: `left: ${Math.min(100, end / limit * 100)}%` }));
    $("segment-marks").replaceChildren(...marks);
    const none = s.segments === 0;
    $("undo").disabled = none || s.recording;
    $("reset").disabled = none || s.recording;
    $("save").disabled = none || s.recording;
    const parts = [`${Math.round(s.frameRate)} fps`, `${s.width}×${s.height}`, `${s.droppedFrames} dropped`,
      `preview ${s.previewFrames} frames, ${s.encodeMilliseconds.toFixed(1)} ms each`];
    const line = $("status-line");
    line.replaceChildren(parts.join(" · "));
    for (const message of s.errors || []) line.append(" · ", element("span", { class: "bad", text: message }));
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

  // Hold to record, let go to pause.
  const record = $("record");
  async function hold(event) {
    if (event) event.preventDefault();
    if (holding) return;
    holding = true;
    record.classList.add("held");
    try { renderStatus(await api("/api/segments/start", { method: "POST", body: {} })); }
    catch (error) { toast(error.message, "error"); release(); }
  }
  async function release() {
    if (!holding) return;
    holding = false;
    record.classList.remove("held");
    try { renderStatus(await api("/api/segments/pause", { method: "POST", body: {} })); }
    catch (error) { toast(error.message, "error"); }
  }
  record.addEventListener("pointerdown", (e) => { record.setPointerCapture(e.pointerId); hold(e); });
  record.addEventListener("pointerup", release);
  record.addEventListener("pointercancel", release);
  record.addEventListener("keydown", (e) => { if ((e.key === " " || e.key === "Enter") && !e.repeat) hold(e); });
  record.addEventListener("keyup", (e) => { if (e.key === " " || e.key === "Enter") release(); });
  record.addEventListener("contextmenu", (e) => e.preventDefault());

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
  $("video-dialog").addEventListener("close", () => $("video-result").pause());

  on("status", renderStatus);
  // At the limit the recorder stops by itself; the page saves as if Save were pressed.
  on("limit", async (event) => {
    holding = false;
    record.classList.remove("held");
    toast(`${event.seconds} seconds: saving your video…`);
    saveVideo();
  });
  load();
})();