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
  // The marker on the picture says whether it is live, as the event stream does.
  setInterval(() => {
    const lost = document.body.dataset.live === "false";
    $("preview-message").textContent = lost ? "The studio is not answering: reconnecting…" : "Waiting for the camera…";
    $("preview-message").hidden = (sound.on ? liveVideo.readyState >= 2 : preview.naturalWidth > 0) && !lost;
    const live = document.body.dataset.live === "true" ? "live" : lost ? "lost" : "connecting";
    const marker = $("live-marker");
    if (marker.dataset.live !== live) {
      marker.dataset.live = live;
      marker.textContent = live === "live" ? "Live" : live === "lost" ? "Reconnecting…" : "Connecting…";
    }
  }, 250);
  preview.addEventListener("error", () => {
    if (sound.on) return;
    $("preview-message").hidden = false;
    setTimeout(startPreview, 1500);
  });

  // The preview with sound: fMP4 fragments of half a second (H.264 and AAC, each starting on
  // a keyframe) played through Media Source Extensions, instead of the silent MJPEG. Each
  // fragment says when its first picture was captured, so the page shows how far behind
  // the camera it plays; the level meter then measures the sound the page plays.
  const liveVideo = $("live-video");
  const sound = { on: false, run: 0, marks: [], analyser: null, context: null, peaks: [] };
  function appendTo(buffer, data) {
    return new Promise((resolve, reject) => {
      buffer.addEventListener("updateend", resolve, { once: true });
      buffer.addEventListener("error", () => reject(new Error("the browser refused a fragment")), { once: true });
      buffer.appendBuffer(data);
    });
  }
  async function playSound(run) {
    const init = await fetch(`/api/live/init.mp4?t=${Date.now()}`, { cache: "no-store" });
    if (!init.ok) throw new Error(`the studio answered ${init.status} for the stream`);
    const stream = init.headers.get("X-Reel-Stream"), type = init.headers.get("X-Reel-Type");
    if (!window.MediaSource || !MediaSource.isTypeSupported(type)) throw new Error(`this browser cannot play ${type}`);
    const media = new MediaSource();
    const url = URL.createObjectURL(media);
    liveVideo.src = url;
    await new Promise((resolve) => media.addEventListener("sourceopen", resolve, { once: true }));
    URL.revokeObjectURL(url);
    const buffer = media.addSourceBuffer(type);
    await appendTo(buffer, await init.arrayBuffer());
    sound.marks = [];
    let after = -1;
    while (sound.on && sound.run === run) {
      const answer = await fetch(`/api/live/fragment?stream=${stream}&after=${after}`, { cache: "no-store" });
      if (!sound.on || sound.run !== run) return;
      if (answer.status === 204) continue;
      if (answer.status === 409) return playSound(run);  // a new stream: its own initialization segment
      if (!answer.ok) throw new Error(`the studio answered ${answer.status} for a fragment`);
      after = Number(answer.headers.get("X-Reel-Fragment"));
      sound.marks.push({ start: Number(answer.headers.get("X-Reel-Start")), captured: Number(answer.headers.get("X-Reel-Captured")) });
      if (sound.marks.length > 40) sound.marks.shift();
      await appendTo(buffer, await answer.arrayBuffer());
      const ranges = liveVideo.buffered;
      if (!ranges.length) continue;
      const first = ranges.start(ranges.length - 1), end = ranges.end(ranges.length - 1);
      // Live: play from the newest fragment, and jump ahead when more than a second is buffered.
      if (liveVideo.currentTime < first || end - liveVideo.currentTime > 1) liveVideo.currentTime = Math.max(first, end - 0.3);
      // Keep ten seconds behind the playhead at most.
      if (!buffer.updating && liveVideo.currentTime - ranges.start(0) > 15) {
        buffer.remove(0, liveVideo.currentTime - 10);
        await new Promise((resolve) => buffer.addEventListener("updateend", resolve, { once: true }));
      }
      if (liveVideo.paused) liveVideo.play().catch(() => {});
    }
  }
  async function runSound() {
    const run = ++sound.run;
    while (sound.on && sound.run === run) {
      try {
        await playSound(run);
      } catch (error) {
        if (!sound.on || sound.run !== run) return;
        $("latency").textContent = "Sound: reconnecting…";
        await new Promise((resolve) => setTimeout(resolve, 1500));
      }
    }
  }
  // The meter from the sound the page plays: the element's stream through an analyser (the
  // element itself plays on, to the speakers, untouched).
  function listen() {
    if (sound.analyser || !liveVideo.captureStream) return;
    try {
      const stream = liveVideo.captureStream();
      if (!stream.getAudioTracks().length) return;
      let context;
      try { context = new AudioContext({ sinkId: { type: "none" } }); } catch (_) { context = new AudioContext(); }
      const analyser = context.createAnalyser();
      analyser.fftSize = 16384;  // a third of a second at 48 kHz, the studio meter's quarter second and more
      context.createMediaStreamSource(stream).connect(analyser);
      sound.context = context;
      sound.analyser = analyser;
    } catch (_) { sound.analyser = null; }
  }
  liveVideo.addEventListener("playing", listen);
  function soundLevel() {
    const analyser = sound.analyser;
    if (!analyser) return null;
    const data = new Float32Array(analyser.fftSize);
    analyser.getFloatTimeDomainData(data);
    const now = performance.now();
    const quarter = Math.min(data.length, Math.round(analyser.context.sampleRate * 0.25));
    let squares = 0, peak = 0;
    for (let i = data.length - quarter; i < data.length; i++) { squares += data[i] * data[i]; peak = Math.max(peak, Math.abs(data[i])); }
    sound.peaks.push([now, peak]);
    sound.peaks = sound.peaks.filter(([t]) => now - t <= 1000);
    const held = Math.max(...sound.peaks.map(([, p]) => p));
    const db = (x, k) => x > 0 ? Math.max(-120, k * Math.log10(x)) : -120;
    return { level: db(squares / quarter, 10), peak: db(held, 20) };
  }
  setInterval(() => {
    if (!sound.on) return;
    const measured = soundLevel();
    if (measured) {
      renderMeter(measured.level, measured.peak);
      $("mic-meter").dataset.source = "stream";
    }
    // How far behind: now against the capture time of the picture at the playhead.
    const at = liveVideo.currentTime;
    const mark = sound.marks.filter((m) => m.start <= at + 0.001).pop();
    if (mark && liveVideo.readyState >= 2) {
      const behind = Date.now() / 1000 - (mark.captured + (at - mark.start));
      $("latency").textContent = `Sound · ${behind.toFixed(1)} s behind`;
      $("latency").dataset.latency = String(Math.round(behind * 1000));
    }
  }, 100);
  function setSound(on) {
    sound.on = on;
    $("sound-chip").setAttribute("aria-pressed", on ? "true" : "false");
    $("sound-chip").setAttribute("aria-label", on ? "Preview with sound: on" : "Preview with sound");
    $("latency").hidden = !on;
    $("mic-meter").dataset.source = "studio";
    document.body.dataset.sound = on ? "on" : "off";
    if (on) {
      $("latency").textContent = "Sound: starting…";
      delete $("latency").dataset.latency;
      preview.hidden = true;
      preview.removeAttribute("src");  // the MJPEG stream closes: the studio stops encoding it for this page
      liveVideo.hidden = false;
      runSound();
    } else {
      sound.run++;
      liveVideo.pause();
      liveVideo.removeAttribute("src");
      liveVideo.load();
      liveVideo.hidden = true;
      if (sound.context) sound.context.close();
      sound.context = null;
      sound.analyser = null;
      preview.hidden = false;
      startPreview();
    }
  }
  $("sound-chip").addEventListener("click", () => setSound(!sound.on));

  // Save replay: the studio keeps recording; the file lands in the gallery a second or two later.
  $("save-replay").addEventListener("click", async () => {
    try {
      const answer = await api("/api/replay", { method: "POST" });
      toast(`Saving the last ${Math.round(answer.saving)} seconds…`);
    } catch (error) { toast(error.message, "error"); }
  });
  on("replay", (event) => {
    toast(`Replay saved: ${event.saved}`);
    $("announce").textContent = `Replay saved to the gallery: ${event.saved}`;
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
    renderFilterStrip(state.filters, state.filter);
    const single = state.cameras.length < 2;
    $("switch-camera").disabled = single;
    $("switch-reason").hidden = !single;
    $("switch-reason").textContent = single ? "This machine has one camera. To add a clip as a second one, start reel studio with --camera\u00a0file:CLIP.mp4." : "";
    renderControls(state.controls);
    renderChips();
    // The replay buffer's button, with `reel studio --replay-buffer N`.
    const replay = state.replaySeconds;
    $("save-replay").hidden = !replay;
    if (replay) {
      const words = `Save the last ${Math.round(replay)} seconds as a video`;
      $("save-replay").setAttribute("aria-label", words);
      $("save-replay").title = words;
      $("save-replay-text").textContent = `Last ${Math.round(replay)} s`;
    }
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

  // The filter strip beside the shutter: one radio button a filter, one Tab stop (the
  // arrow keys move along it, as in any radio group). Made once per list of filters.
  function renderFilterStrip(filters, current) {
    const strip = $("filter-strip");
    const key = filters.join(",");
    if (strip.dataset.filters !== key) {
      strip.replaceChildren(...filters.map((name) => element("button", {
        type: "button", role: "radio", class: "filter-chip", "data-filter": name, "aria-checked": "false", tabindex: "-1",
        text: name === "none" ? "None" : filterLabel(name),
        onclick: async () => {
          if (!state || state.filter === name) return;
          try { render(await api("/api/filter", { method: "POST", body: { id: name } })); }
          catch (error) { toast(error.message, "error"); load(); }
        },
      })));
      strip.dataset.filters = key;
    }
    for (const button of strip.children) {
      const on = button.dataset.filter === current;
      button.setAttribute("aria-checked", on ? "true" : "false");
      button.tabIndex = on ? 0 : -1;
      if (on && strip.dataset.shown !== current) {
        // Scroll the strip (not the page) to the chosen filter.
        strip.scrollLeft = button.offsetLeft - (strip.clientWidth - button.offsetWidth) / 2;
        strip.dataset.shown = current;
      }
    }
  }
  $("filter-strip").addEventListener("keydown", (e) => {
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[e.key];
    if (!step || !state) return;
    e.preventDefault();
    const buttons = [...$("filter-strip").children];
    const at = buttons.indexOf(document.activeElement);
    const next = buttons[(Math.max(0, at) + step + buttons.length) % buttons.length];
    next.focus();
    next.click();
  });

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
        "aria-labelledby": `control-${c.id}-name`, "aria-describedby": `control-${c.id}-why`, "aria-checked": "false" });
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
    // Why a control is off, or a note under one that is offered (what Stabilization does,
    // or that a change reaches the next recording).
    const words = off ? c.reason : c.note;
    why.textContent = words || "";
    why.hidden = !words;
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
  let announcedStep = 0;
  let elsewhere = false, recordingHere = false;

  // The level meter on the picture: the studio's measure of the microphone, −60…0 dBFS.
  function renderMeter(level, peak) {
    const meter = $("mic-meter");
    const none = level === null || level === undefined;
    const fraction = (db) => Math.max(0, Math.min(1, (db + 60) / 60));
    $("mic-fill").style.width = none ? "0%" : `${(fraction(level) * 100).toFixed(1)}%`;
    $("mic-peak").style.left = none ? "0%" : `${(fraction(peak) * 100).toFixed(1)}%`;
    $("mic-peak").hidden = none || peak <= -60;
    meter.setAttribute("aria-valuenow", none ? "-60" : String(Math.round(Math.max(-60, Math.min(0, level)))));
    meter.setAttribute("aria-valuetext", none ? "No sound" : level <= -60 ? "Silent" : `${Math.round(level)} dB`);
    meter.dataset.level = none ? "" : level.toFixed(1);
    meter.classList.toggle("loud", !none && peak > -3);
  }
  function renderStatus(s) {
    if (!s) return;
    $("rec-time").textContent = duration(s.recordedSeconds);
    $("rec-badge").classList.toggle("on", s.recording);
    $("segment-fill").style.width = `${Math.min(100, s.progress * 100)}%`;
    const marks = !limit ? [] : (s.segmentEnds || []).map((end) => element("i", { style: `left: ${Math.min(100, end / limit * 100)}%` }));
    $("segment-marks").replaceChildren(...marks);
    const none = s.segments === 0;
    // Another page's press is recording: this page's button waits for it.
    elsewhere = s.recording && s.recordingPage !== page && !holding;
    recordingHere = s.recording && s.recordingPage === page;
    renderShutter();
    $("undo").disabled = none || s.recording;
    $("reset").disabled = none || s.recording;
    $("save").disabled = none || s.recording;
    $("segments-bar").setAttribute("aria-valuenow", String(Math.round(Math.min(100, s.progress * 100))));
    if (!sound.on || !sound.analyser) renderMeter(s.microphoneLevel, s.microphonePeak);
    // How far the newest preview picture is behind the camera, in frames and milliseconds.
    const behind = s.previewFrameIndex === null || s.previewFrameIndex === undefined ? null
      : Math.max(0, s.captureFrameIndex - s.previewFrameIndex);
    const parts = [`${Math.round(s.frameRate)} fps`, `${s.width}×${s.height}`, `${s.droppedFrames} dropped`,
      `preview ${s.previewFrames} frames, ${s.encodeMilliseconds.toFixed(1)} ms each to encode`,
      behind === null ? "preview not running" : `preview ${behind} frames (${Math.round(behind / Math.max(1, s.frameRate) * 1000)} ms) behind`,
      `${s.previewViewers} viewer${s.previewViewers === 1 ? "" : "s"}`,
      s.microphoneLevel === null || s.microphoneLevel === undefined ? "no sound" : `microphone ${s.microphoneLevel.toFixed(0)} dBFS`];
    // The figures are for developers, behind Details; errors are for everyone.
    $("status-line").textContent = parts.join(" · ");
    $("status-errors").textContent = (s.errors || []).join(" · ");
    $("status-errors").hidden = !(s.errors || []).length;
    // Recording starts and stops are announced to screen readers.
    // So is the progress, every five seconds of a recording.
    if (wasRecording !== null && wasRecording !== s.recording) {
      $("announce").textContent = s.recording ? "Recording" : `Paused: ${duration(s.recordedSeconds)} recorded`;
    } else if (s.recording && limit) {
      const step = Math.floor(s.recordedSeconds / 5) * 5;
      if (step > 0 && step !== announcedStep) $("announce").textContent = `Recording: ${step} of ${limit} seconds`;
      announcedStep = step;
    }
    if (!s.recording) announcedStep = 0;
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
  $("flash-chip").addEventListener("click", (e) => {
    e.stopPropagation();
    const flash = control("flash");
    if (!flash || !flash.options) return;
    const next = flash.options[(flash.options.indexOf(flash.option) + 1) % flash.options.length];
    send("flash", { option: next });
  });
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
    const flash = control("flash");
    const flashOn = flash && flash.supported ? flash.option : null;
    $("flash-chip").hidden = !flashOn;
    if (flashOn) {
      const word = flashOn[0].toUpperCase() + flashOn.slice(1);
      $("flash-chip-text").textContent = word;
      $("flash-chip").setAttribute("aria-label", `Flash for photos: ${flashOn}`);
    }
    $("torch-chip").setAttribute("aria-pressed", torch && torch.value ? "true" : "false");
  }
  // The last shot's thumbnail leads to the gallery.
  async function lastShot() {
    try {
      const items = await api("/api/library");
      $("last-shot-image").hidden = items.length === 0;
      if (items.length) {
        $("last-shot-image").src = items[0].thumbnail;
        $("last-shot").setAttribute("aria-label", `Open the gallery: the last ${items[0].kind === "video" ? "video" : "photo"}, ${items[0].name}`);
      } else {
        $("last-shot").setAttribute("aria-label", "Open the gallery");
      }
    } catch (_) { /* the gallery button still leads there */ }
  }
  on("library", lastShot);
  lastShot();

  $("viewfinder").addEventListener("click", async (event) => {
    const shown = sound.on ? liveVideo : preview;
    const box = shown.getBoundingClientRect();
    const [naturalWidth, naturalHeight] = sound.on ? [liveVideo.videoWidth, liveVideo.videoHeight] : [preview.naturalWidth, preview.naturalHeight];
    const natural = naturalWidth && naturalHeight ? naturalWidth / naturalHeight : 16 / 9;
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

  // One shutter: in Photo mode a press takes a photo; in Video mode it is held to record.
  const shutter = $("shutter");
  let mode = sessionStorage.getItem("reel.mode") === "video" ? "video" : "photo";
  function setMode(next, focus) {
    if (holding) return;
    mode = next;
    sessionStorage.setItem("reel.mode", mode);
    for (const button of document.querySelectorAll(".modes [role=radio]")) {
      const on = button.dataset.mode === mode;
      button.setAttribute("aria-checked", on ? "true" : "false");
      button.tabIndex = on ? 0 : -1;
      if (on && focus) button.focus();
    }
    document.body.dataset.mode = mode;
    renderShutter();
  }
  function renderShutter() {
    shutter.classList.toggle("photo", mode === "photo");
    shutter.classList.toggle("record", mode === "video");
    shutter.disabled = mode === "video" ? elsewhere : photoBusy;
    shutter.setAttribute("aria-label", mode === "photo" ? "Take a photo"
      : elsewhere ? "Another page is recording" : holding ? "Recording: let go, or press again, to pause" : "Hold to record");
    shutter.setAttribute("aria-pressed", mode === "video" ? (holding ? "true" : "false") : "false");
    if (mode === "photo") shutter.removeAttribute("aria-pressed");
    for (const button of document.querySelectorAll(".modes [role=radio]")) button.disabled = holding || recordingHere;
  }
  for (const button of document.querySelectorAll(".modes [role=radio]")) {
    button.addEventListener("click", () => setMode(button.dataset.mode, false));
    button.addEventListener("keydown", (e) => {
      if (["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"].includes(e.key)) {
        e.preventDefault();
        setMode(mode === "photo" ? "video" : "photo", true);
      }
    });
  }

  let photoBusy = false;
  async function takePhoto() {
    const button = shutter;
    photoBusy = true;
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
    photoBusy = false;
    renderShutter();
  }
  shutter.addEventListener("click", (e) => { if (mode === "photo") { e.preventDefault(); takePhoto(); } });

  // Hold to record, let go to pause. Each press has a number: the studio refuses a start
  // that arrives after its own release, and ends the segment only at this page's release.
  // In the page too a recording belongs to the press that started it: `heldBy` is the
  // pointer holding it (its pointerId), or "key" for Space or Enter; only that pointer's
  // release, or the next key press, ends it.
  const record = shutter;
  let press = 0;
  let heldBy = null;
  let pressedAt = 0;
  async function hold(event, by) {
    if (event) event.preventDefault();
    if (mode !== "video" || holding || record.disabled) return;
    holding = true;
    heldBy = by;
    press += 1;
    const mine = press;
    // The input's own time: a busy page may run this handler late.
    pressedAt = event && event.timeStamp ? event.timeStamp : performance.now();
    record.classList.add("held");
    renderShutter();
    try { renderStatus(await api("/api/segments/start", { method: "POST", body: { page, press: mine } })); }
    catch (error) {
      // A start refused because its release came first says nothing: the release says it.
      if (mine !== press || !holding) return;
      holding = false;
      heldBy = null;
      record.classList.remove("held");
      renderShutter();
      toast(error.message.startsWith("another page") ? "Another page is recording; wait for it to let go." : error.message, "error");
    }
  }
  async function release(event) {
    if (!holding) return;
    holding = false;
    heldBy = null;
    record.classList.remove("held");
    renderShutter();
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
  record.addEventListener("pointerdown", (e) => {
    if (mode !== "video" || e.button !== 0 || holding) return;
    record.setPointerCapture(e.pointerId);
    hold(e, e.pointerId);
  });
  const pointerLetGo = (e) => { if (holding && heldBy === e.pointerId) release(e); };
  record.addEventListener("pointerup", pointerLetGo);
  record.addEventListener("pointercancel", pointerLetGo);
  // From the keyboard a key cannot be held comfortably (and repeats): Space or Enter
  // starts, the next press pauses. The 300 ms rule still applies between the two.
  record.addEventListener("keydown", (e) => {
    if (mode !== "video" || (e.key !== " " && e.key !== "Enter")) return;
    e.preventDefault();
    if (e.repeat) return;
    // A key ends a recording a key started; one a pointer holds ends at that pointer's release.
    if (holding) { if (heldBy === "key") release(e); return; }
    hold(e, "key");
  });
  record.addEventListener("keyup", (e) => { if (mode === "video" && (e.key === " " || e.key === "Enter")) e.preventDefault(); });
  record.addEventListener("contextmenu", (e) => e.preventDefault());
  // Leaving (reload, another page, closing the tab) lets go at once; the studio would also
  // notice this page's event stream closing.
  window.addEventListener("pagehide", () => {
    if (!holding) return;
    holding = false;
    heldBy = null;
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
  // Closing the review or the photo dialog returns to the shutter.
  $("video-dialog").addEventListener("close", () => { $("video-result").pause(); shutter.focus(); });
  $("photo-dialog").addEventListener("close", () => shutter.focus());

  on("status", renderStatus);
  on("state", render);
  onOpen(load);
  // At the limit the recorder stops by itself; the page that was recording saves as if
  // Save were pressed (the others leave it to that page).
  on("limit", async (event) => {
    if (event.page !== page) return;
    holding = false;
    heldBy = null;
    record.classList.remove("held");
    renderShutter();
    toast(`${event.seconds} seconds: saving your video…`);
    saveVideo();
  });
  setMode(mode, false);
  load();
})();