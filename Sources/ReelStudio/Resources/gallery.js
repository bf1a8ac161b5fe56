"use strict";
(() => {
  const { $, api, toast, on, duration, bytes, element } = Studio;
  let items = [];
  let kind = "all";
  let pending = null;

  function render() {
    const shown = items.filter((i) => kind === "all" || i.kind === kind);
    const photos = items.filter((i) => i.kind === "photo").length, videos = items.length - photos;
    $("gallery-summary").textContent = `${photos} photo${photos === 1 ? "" : "s"} and ${videos} video${videos === 1 ? "" : "s"}`;
    $("empty").hidden = shown.length > 0;
    $("grid").replaceChildren(...shown.map(card));
  }

  // A title a person reads at a glance: "Video · 0:05 · 20:36"; the file's name stays in the tooltip and the viewer.
  function title(item) {
    const time = new Date(item.created * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
    if (item.kind !== "video") return `Photo · ${time}`;
    const seconds = Math.floor(item.duration || 0);
    return `Video · ${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")} · ${time}`;
  }

  function card(item) {
    const label = item.kind === "video" ? duration(item.duration) : "Photo";
    const thumb = element("button", { class: "thumb", type: "button", "aria-label": `Open ${title(item)}`, onclick: () => open(item) }, [
      element("img", { src: item.thumbnail, alt: "", loading: "lazy" }),
      element("span", { class: "badge", text: label }),
    ]);
    const size = item.width ? `${item.width}×${item.height} · ` : "";
    return element("article", { class: "item", "data-name": item.name, "data-kind": item.kind }, [
      thumb,
      element("div", { class: "meta" }, [
        element("div", { class: "name", text: title(item), title: item.name }),
        element("div", { class: "sub", text: `${size}${bytes(item.bytes)} · ${new Date(item.created * 1000).toLocaleDateString([], { month: "short", day: "numeric" })}` }),
      ]),
      // Small icon buttons keep the grid dense; their names say which item they act on.
      element("div", { class: "row" }, [
        icon(element("a", { class: "button icon", href: `${item.url}?download=1`, download: item.name,
          "aria-label": `Download ${title(item)}`, title: "Download" }), "M12 3v12M7 10l5 5 5-5M5 20h14"),
        icon(element("button", { type: "button", class: "delete icon", "aria-label": `Delete ${title(item)}`, title: "Delete",
          onclick: () => confirmDelete(item) }), "M4 7h16M9 7V4h6v3M6 7l1 13h10l1-13"),
      ]),
    ]);
  }

  function icon(node, path) {
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("viewBox", "0 0 24 24");
    svg.setAttribute("aria-hidden", "true");
    const line = document.createElementNS("http://www.w3.org/2000/svg", "path");
    line.setAttribute("d", path);
    svg.append(line);
    node.append(svg);
    return node;
  }

  // The viewer steps through the items shown: buttons, arrow keys, or a swipe.
  let viewing = -1;
  function shown() { return items.filter((i) => kind === "all" || i.kind === kind); }
  function open(item) {
    const list = shown();
    viewing = list.findIndex((i) => i.name === item.name);
    $("viewer-position").textContent = `${viewing + 1} of ${list.length} · ${title(item)}`;
    $("viewer-previous").disabled = viewing <= 0;
    $("viewer-next").disabled = viewing >= list.length - 1;
    $("viewer-title").textContent = item.name;
    const media = item.kind === "video"
      ? element("video", { src: item.url, controls: true, playsinline: true, autoplay: true, muted: true })
      : element("img", { src: item.url, alt: item.name });
    $("viewer-media").replaceChildren(media);
    $("viewer-download").href = `${item.url}?download=1`;
    $("viewer-download").setAttribute("download", item.name);
    if (!$("viewer").open) $("viewer").showModal();
  }
  function step(by) {
    const list = shown();
    const next = list[viewing + by];
    if (next) open(next);
  }
  $("viewer-previous").addEventListener("click", () => step(-1));
  $("viewer-next").addEventListener("click", () => step(1));
  document.addEventListener("keydown", (e) => {
    if (!$("viewer").open || e.target.tagName === "VIDEO") return;
    if (e.key === "ArrowLeft") { e.preventDefault(); step(-1); }
    if (e.key === "ArrowRight") { e.preventDefault(); step(1); }
  });
  let swipeX = null;
  $("viewer-media").addEventListener("pointerdown", (e) => { swipeX = e.clientX; });
  $("viewer-media").addEventListener("pointerup", (e) => {
    if (swipeX === null) return;
    const dx = e.clientX - swipeX;
    swipeX = null;
    if (Math.abs(dx) > 50) step(dx < 0 ? 1 : -1);
  });
  $("viewer-delete").addEventListener("click", () => {
    const item = shown()[viewing];
    $("viewer").close();
    if (item) confirmDelete(item);
  });
  // Closing the viewer (Close, Escape) returns focus to the card of the item it showed last,
  // or, when that item went, to the grid's first card; the confirmation returns to its Delete.
  function refocus(name, selector) {
    const card = [...document.querySelectorAll("article.item")].find((a) => a.dataset.name === name)
      || document.querySelector("article.item");
    const target = card ? card.querySelector(selector) || card.querySelector(".thumb") : $("gallery-summary");
    if (target) target.focus();
  }
  $("viewer").addEventListener("close", () => {
    const item = shown()[viewing];
    $("viewer-media").replaceChildren();
    if (!$("confirm").open && item) refocus(item.name, ".thumb");
  });
  let deleting = false;
  $("confirm").addEventListener("close", () => { if (!deleting && pending) refocus(pending.name, "button.delete"); });

  function confirmDelete(item) {
    pending = item;
    $("confirm-name").textContent = item.name;
    $("confirm").showModal();
  }
  $("confirm-delete").addEventListener("click", async () => {
    deleting = true;
    $("confirm").close();
    if (!pending) { deleting = false; return; }
    try {
      items = await api(`/api/library/${encodeURIComponent(pending.name)}`, { method: "DELETE" });
      offerUndo(pending.name);
      render();
      // The item went: focus moves to its Undo.
      $("undo-delete").focus();
    } catch (error) { toast(error.message, "error"); refocus(pending.name, "button.delete"); }
    pending = null;
    deleting = false;
  });

  // A delete can be undone for a while (until the studio restarts, the file waits in the trash).
  let undoing = null;
  let undoTimer = null;
  function offerUndo(name) {
    undoing = name;
    $("undo-text").textContent = `Deleted ${name}`;
    $("undo-bar").hidden = false;
    clearTimeout(undoTimer);
    undoTimer = setTimeout(() => { $("undo-bar").hidden = true; }, 10000);
  }
  $("undo-delete").addEventListener("click", async () => {
    if (!undoing) return;
    try {
      items = await api("/api/library/restore", { method: "POST", body: { id: undoing } });
      toast(`Put back ${undoing}`);
      render();
    } catch (error) { toast(error.message, "error"); }
    undoing = null;
    $("undo-bar").hidden = true;
  });

  for (const button of document.querySelectorAll(".segmented button")) {
    button.addEventListener("click", () => {
      kind = button.dataset.kind;
      for (const other of document.querySelectorAll(".segmented button")) other.setAttribute("aria-pressed", other === button ? "true" : "false");
      render();
    });
  }

  async function load() {
    try { items = await api("/api/library"); render(); } catch (error) { toast(error.message, "error"); }
  }
  // Another page (a phone, say) took a photo or deleted one: show it here too.
  let reload = null;
  on("library", () => { clearTimeout(reload); reload = setTimeout(load, 150); });
  load();
})();