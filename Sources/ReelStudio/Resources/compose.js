"use strict";
(() => {
  const { $, api, toast, on, onOpen, duration, element, fill } = Studio;
  let videos = [];
  let photos = [];
  let order = [];
  let running = null;

  const transitionLabels = { "none": "Cut (none)", "dissolve": "Dissolve", "push-left": "Push left", "push-right": "Push right",
    "slide-left": "Slide left", "slide-up": "Slide up", "wipe-left": "Wipe left", "fade": "Fade through black", "zoom": "Zoom" };
  const stickerLabels = { "none": "No sticker", "square": "Yellow square (the seed's)", "text": "Text", "photo": "A photo from the library" };

  function clipRow(item, buttons) {
    return element("li", { class: "clip", "data-name": item.name }, [
      element("img", { src: item.thumbnail, alt: "" }),
      element("div", {}, [element("div", { class: "name", text: item.name, title: item.name }),
        element("div", { class: "sub", text: `${duration(item.duration)} · ${item.width}×${item.height}` })]),
      element("div", { class: "buttons" }, buttons),
    ]);
  }

  function render() {
    $("no-clips").hidden = videos.length > 0;
    $("clip-list").replaceChildren(...videos.map((item) => {
      const row = clipRow(item, [element("button", { type: "button", class: "add", "aria-label": `Add ${item.name}`, text: "+",
        onclick: () => { order.push(item); render(); } })]);
      return row;
    }));
    $("order-empty").hidden = order.length > 0;
    $("order").replaceChildren(...order.map((item, index) => clipRow(item, [
      element("button", { type: "button", "aria-label": "Move up", text: "↑", disabled: index === 0,
        onclick: () => { [order[index - 1], order[index]] = [order[index], order[index - 1]]; render(); } }),
      element("button", { type: "button", "aria-label": "Move down", text: "↓", disabled: index === order.length - 1,
        onclick: () => { [order[index + 1], order[index]] = [order[index], order[index + 1]]; render(); } }),
      element("button", { type: "button", "aria-label": "Remove", text: "✕", onclick: () => { order.splice(index, 1); render(); } }),
    ])));
    $("export").disabled = order.length === 0 || running !== null;
    fill($("sticker-photo"), photos.map((p) => ({ value: p.name, label: p.name })));
    schedulePreview();
  }

  function stickerRows() {
    const kind = $("sticker").value;
    $("sticker-text-row").hidden = kind !== "text";
    $("sticker-photo-row").hidden = kind !== "photo";
  }

  // The preview: the composition as it stands, rendered small by the studio as soon as it
  // changes and played by the <video> element (sound, seeking, sync are the browser's).
  // A changed composition takes the old picture off at once; only the preview named for
  // the composition asked for last is ever shown.
  const preview = { wanted: null, key: null, ready: null, timer: null, playAsked: false, poller: null };
  const previewVideo = $("preview-video");

  function previewBody() {
    if (order.length === 0) return null;
    const kind = $("transition").value;
    return {
      clips: order.map((item) => item.name),
      transition: kind === "none" ? "none" : `${kind}:${$("transition-seconds").value}`,
      sticker: { kind: $("sticker").value, text: $("sticker-text").value, photo: $("sticker-photo").value || null },
    };
  }

  function clock(seconds) {
    const whole = Math.floor(seconds);
    return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}.${String(Math.floor((seconds - whole) * 100)).padStart(2, "0")}`;
  }

  function previewState(state, words) {
    $("preview").dataset.state = state;
    $("preview-status").textContent = words;
    $("preview-play").disabled = state === "none" || state === "failed";
    $("preview-scrub").disabled = state !== "ready";
  }

  function schedulePreview() {
    const body = previewBody();
    const text = body ? JSON.stringify(body) : null;
    if (text === preview.wanted) return;
    preview.wanted = text;
    preview.key = null;
    preview.ready = null;
    clearTimeout(preview.timer);
    clearInterval(preview.poller);
    previewVideo.pause();
    previewVideo.removeAttribute("src");
    previewVideo.load();
    $("preview").dataset.key = "";
    $("preview-scrub").value = 0;
    $("preview-time").textContent = clock(0);
    $("preview-play").textContent = "Play";
    if (!body) { preview.playAsked = false; previewState("none", "Add clips to see a preview."); return; }
    previewState("rendering", "Making the preview…");
    preview.timer = setTimeout(() => askPreview(text, body), 120);
  }

  async function askPreview(text, body) {
    try {
      const made = await api("/api/compose/preview", { method: "POST", body });
      if (preview.wanted !== text) return;
      preview.key = made.key;
      acceptPreview(made);
      // The event says when it is ready; a slow poll makes sure a missed one does not matter.
      if (made.state === "rendering") {
        preview.poller = setInterval(async () => {
          try { const now = await api("/api/compose/preview"); if (now.key === preview.key) acceptPreview(now); } catch (_) { /* the event will tell */ }
        }, 1000);
      }
    } catch (error) {
      if (preview.wanted === text) previewState("failed", error.message);
    }
  }

  function acceptPreview(made) {
    if (!made || made.key !== preview.key || preview.ready) return;
    if (made.state === "rendering") return;
    clearInterval(preview.poller);
    if (made.state === "failed") { previewState("failed", made.error || "the preview failed"); return; }
    preview.ready = made;
    $("preview").dataset.key = made.key;
    const scrub = $("preview-scrub");
    scrub.max = made.duration;
    scrub.step = made.frameDuration;
    previewVideo.src = made.url;
    previewState("ready", `Preview ${clock(made.duration)} · ${made.width}×${made.height} · made in ${made.renderSeconds.toFixed(2)} s`);
    if (preview.playAsked) { preview.playAsked = false; startPreview(); }
  }
  on("preview", acceptPreview);

  function startPreview() {
    previewVideo.play().catch((error) => toast(`the preview does not play: ${error.message}`, "error"));
  }

  $("preview-play").addEventListener("click", () => {
    if (!preview.ready) {
      preview.playAsked = !preview.playAsked;
      $("preview-play").textContent = preview.playAsked ? "Pause" : "Play";
      return;
    }
    if (previewVideo.paused) startPreview(); else previewVideo.pause();
  });
  previewVideo.addEventListener("play", () => { $("preview-play").textContent = "Pause"; });
  previewVideo.addEventListener("pause", () => { $("preview-play").textContent = "Play"; });
  function followPlayhead() {
    if (previewVideo.paused) return;
    $("preview-scrub").value = previewVideo.currentTime;
    $("preview-time").textContent = clock(previewVideo.currentTime);
    requestAnimationFrame(followPlayhead);
  }
  previewVideo.addEventListener("playing", followPlayhead);
  // Scrubbing pauses and shows the frame under the playhead: the element is sent to the
  // middle of that frame, as a time on the frame's edge may land on the one before (the
  // element keeps its time in whole microseconds).
  $("preview-scrub").addEventListener("input", () => {
    if (!preview.ready) return;
    previewVideo.pause();
    const time = Number($("preview-scrub").value);
    const step = preview.ready.frameDuration;
    const frame = Math.floor(time / step + 1e-6);
    previewVideo.currentTime = Math.min(preview.ready.duration - step / 2, (frame + 0.5) * step);
    $("preview-time").textContent = clock(time);
  });
  for (const id of ["transition", "transition-seconds", "sticker", "sticker-text", "sticker-photo"]) {
    $(id).addEventListener("input", schedulePreview);
    $(id).addEventListener("change", schedulePreview);
  }

  $("sticker").addEventListener("change", stickerRows);
  // A cut has no length to choose.
  function transitionRows() { $("transition-seconds-row").hidden = $("transition").value === "none"; }
  $("transition").addEventListener("change", transitionRows);
  $("transition-seconds").addEventListener("input", () => { $("transition-value").textContent = `${$("transition-seconds").value} s`; });

  $("export").addEventListener("click", async () => {
    const kind = $("transition").value;
    const seconds = $("transition-seconds").value;
    const body = {
      clips: order.map((item) => item.name),
      transition: kind === "none" ? "none" : `${kind}:${seconds}`,
      preset: $("compose-preset").value,
      sticker: { kind: $("sticker").value, text: $("sticker-text").value, photo: $("sticker-photo").value || null },
    };
    try {
      running = await api("/api/compose", { method: "POST", body });
      watching = running.id;
      show(running);
      poll(running.id);
    } catch (error) { toast(error.message, "error"); }
    render();
  });

  // The events carry the progress; a slow poll makes sure the end is seen even if one is missed.
  async function poll(id) {
    while (running && running.id === id) {
      await new Promise((done) => setTimeout(done, 1500));
      try {
        const job = await api("/api/compose/job");
        if (running && job.id === id && job.state !== "exporting") show(job);
      } catch (_) { /* the events will tell */ }
    }
  }

  // The export is the studio's, not this page's: any page that opens Compose sees the one
  // under way (its choices, its progress) and the last one's result.
  let watching = null;
  let shownResult = null;
  function show(job) {
    $("export-fill").style.width = `${Math.round(job.progress * 100)}%`;
    $("export-progress").setAttribute("aria-valuenow", `${Math.round(job.progress * 100)}`);
    if (job.state === "exporting") {
      running = job;
      $("export-status").textContent = `Exporting… ${Math.round(job.progress * 100)}%`;
      render();
      return;
    }
    running = null;
    if (job.state === "failed") {
      $("export-status").textContent = job.error;
      if (watching === job.id) toast(job.error, "error");
    } else if (job.result) {
      $("export-status").textContent = `Done: ${job.result.name}`;
      if (shownResult !== job.id) {
        shownResult = job.id;
        $("result").hidden = false;
        const video = $("result-video");
        // It plays silently where it can be seen; the controls turn the sound on.
        video.muted = true;
        video.src = `${job.result.url}?v=${job.id}`;
        $("result-caption").textContent = `${job.result.name} · ${duration(job.result.duration)} · ${job.result.width}×${job.result.height}`;
        $("result-download").href = `${job.result.url}?download=1`;
        load(false);
        if (watching === job.id) {
          revealResult();
          video.play().catch(() => {});
        }
      }
    }
    render();
  }
  // The finished export's card, brought into view and kept there while the page above it
  // settles (the library gains the new file, the preview and the result learn their sizes),
  // until the person scrolls or presses a key, or 10 s have passed.
  function revealResult() {
    const reveal = () => $("result").scrollIntoView({ block: "center", behavior: "instant" });
    reveal();
    const settling = new ResizeObserver(reveal);
    const events = ["wheel", "touchstart", "keydown", "pointerdown"];
    const end = () => {
      settling.disconnect();
      clearTimeout(timer);
      for (const name of events) removeEventListener(name, end);
    };
    const timer = setTimeout(end, 10000);
    for (const name of events) addEventListener(name, end, { passive: true });
    settling.observe(document.body);
    settling.observe($("result").parentElement);
    settling.observe($("result"));
  }
  on("compose", (job) => {
    if (job.state === "exporting" && watching !== job.id) { watching = job.id; poll(job.id); }
    show(job);
  });

  // The choices of the export under way, as its page made them.
  function restore(request) {
    if (!request) return;
    order = request.clips.map((name) => videos.find((v) => v.name === name)).filter(Boolean);
    const [kind, seconds] = (request.transition || "none").split(":");
    $("transition").value = kind;
    if (seconds) { $("transition-seconds").value = seconds; $("transition-value").textContent = `${seconds} s`; }
    if (request.preset) $("compose-preset").value = request.preset;
    if (request.sticker) {
      $("sticker").value = request.sticker.kind;
      if (request.sticker.text) $("sticker-text").value = request.sticker.text;
    }
    stickerRows();
    transitionRows();
  }

  async function load(options = true) {
    try {
      if (options) {
        const choices = await api("/api/compose");
        fill($("transition"), choices.transitions.map((t) => ({ value: t, label: transitionLabels[t] || t })), "dissolve");
        fill($("sticker"), choices.stickers.map((s) => ({ value: s, label: stickerLabels[s] || s })), "none");
        fill($("compose-preset"), choices.presets.map((p) => ({ value: p, label: p })), "1280x720");
        stickerRows();
        transitionRows();
      }
      const items = await api("/api/library");
      videos = items.filter((i) => i.kind === "video");
      photos = items.filter((i) => i.kind === "photo");
      order = order.filter((o) => videos.some((v) => v.name === o.name));
      const job = (await api("/api/state")).compose;
      if (job && job.state === "exporting" && !running) { restore(job.request); watching = job.id; show(job); poll(job.id); }
      // A progress event that came first has set it running (and polling): its choices still come back.
      else if (job && job.state === "exporting" && order.length === 0) { restore(job.request); show(job); }
      else if (job) show(job);
      render();
    } catch (error) { toast(error.message, "error"); }
  }
  onOpen(() => load(false));
  load();
})();