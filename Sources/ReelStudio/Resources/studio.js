"use strict";
const Studio = (() => {
  const $ = (id) => document.getElementById(id);
  // This page's own ID: the studio knows which page holds a recording, and lets it go when the page goes.
  const page = [...crypto.getRandomValues(new Uint8Array(12))].map((b) => b.toString(16).padStart(2, "0")).join("");

  async function api(path, options = {}) {
    const init = { method: options.method || "GET", headers: {} };
    if (options.body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(options.body);
    }
    if (options.keepalive) init.keepalive = true;
    let response;
    try { response = await fetch(path, init); }
    catch (_) {
      const error = new Error("The studio is not answering. Is reel studio still running? This page reconnects by itself.");
      error.status = 0;
      throw error;
    }
    let data = null;
    try { data = await response.json(); } catch (_) { data = null; }
    if (!response.ok) {
      const message = data && data.error ? data.error : `the studio answered ${response.status}`;
      const error = new Error(message);
      error.status = response.status;
      throw error;
    }
    return data;
  }

  let toastTimer = null;
  function toast(message, kind = "info") {
    const box = $("toast");
    if (!box) return;
    box.textContent = message;
    box.className = `toast show ${kind}`;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { box.className = "toast"; }, kind === "error" ? 5000 : 2600);
  }

  function hideToast() {
    const box = $("toast");
    if (box) box.className = "toast";
  }

  const handlers = {};
  const openers = [];
  let source = null;
  function on(event, handler) {
    (handlers[event] = handlers[event] || []).push(handler);
    if (source) source.addEventListener(event, (e) => handler(JSON.parse(e.data)));
  }
  // Called each time the event stream (re)opens: the page fetches the state it may have missed.
  function onOpen(handler) { openers.push(handler); }
  let live = false;
  function connect() {
    const pill = $("connection");
    source = new EventSource(`/api/events?page=${page}`);
    source.onopen = () => {
      pill.textContent = "Live"; pill.className = "pill live";
      document.body.dataset.live = "true";
      if (live) for (const handler of openers) handler();
      live = true;
    };
    source.onerror = () => { pill.textContent = "Reconnecting…"; pill.className = "pill lost"; document.body.dataset.live = "false"; };
    for (const [event, list] of Object.entries(handlers)) {
      for (const handler of list) source.addEventListener(event, (e) => handler(JSON.parse(e.data)));
    }
    source.addEventListener("error", (e) => { if (e.data) toast(JSON.parse(e.data).message, "error"); });
  }

  function duration(seconds) {
    if (!isFinite(seconds) || seconds < 0) seconds = 0;
    const minutes = Math.floor(seconds / 60);
    const rest = seconds - minutes * 60;
    return `${minutes}:${rest.toFixed(1).padStart(4, "0")}`;
  }
  function bytes(count) {
    if (count < 1024) return `${count} B`;
    if (count < 1048576) return `${(count / 1024).toFixed(0)} KB`;
    return `${(count / 1048576).toFixed(1)} MB`;
  }
  function date(seconds) {
    return new Date(seconds * 1000).toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
  }
  function element(tag, attributes = {}, children = []) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attributes)) {
      if (key === "text") node.textContent = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else if (value !== false && value !== null && value !== undefined) node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children) node.append(child);
    return node;
  }
  function fill(select, options, current) {
    select.replaceChildren(...options.map((o) => element("option", { value: o.value, text: o.label })));
    if (current !== undefined) select.value = current;
  }
  function closeButtons() {
    for (const button of document.querySelectorAll("dialog [data-close]")) {
      button.addEventListener("click", () => button.closest("dialog").close());
    }
  }
  const filterLabel = (name) => name === "none" ? "No filter" : name.replace(/^PhotoEffect/, "").replace(/([a-z])([A-Z])/g, "$1 $2");

  document.addEventListener("DOMContentLoaded", () => { closeButtons(); connect(); });
  return { $, api, toast, hideToast, on, onOpen, page, duration, bytes, date, element, fill, filterLabel };
})();