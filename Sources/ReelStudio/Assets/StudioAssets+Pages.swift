/// The pages: one shell (bar, navigation, connection pill, toast) around each body.
extension StudioAssets {
    static func page(title: String, id: String, body: String) -> String {
        func link(_ href: String, _ label: String, _ page: String) -> String {
            "<a href=\"\(href)\"\(page == id ? " aria-current=\"page\"" : "")>\(label)</a>"
        }
        return """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
        <meta name="color-scheme" content="dark">
        <title>Reel Studio · \(title)</title>
        <link rel="icon" href="/favicon.svg" type="image/svg+xml">
        <link rel="stylesheet" href="/assets/studio.css">
        </head>
        <body data-page="\(id)">
        <header class="bar">
          <a class="brand" href="/"><img src="/favicon.svg" alt="" width="28" height="28"><span>Reel Studio</span></a>
          <nav class="tabs" aria-label="Pages">\(link("/", "Camera", "camera"))\(link("/gallery", "Gallery", "gallery"))\(link("/compose", "Compose", "compose"))</nav>
          <span id="connection" class="pill" title="Live status from the studio">Connecting…</span>
        </header>
        <main class="\(id)">
        \(body)
        </main>
        <div id="toast" class="toast" role="status" aria-live="polite"></div>
        <script src="/assets/studio.js"></script>
        <script src="/assets/\(id).js"></script>
        </body>
        </html>
        """
    }

    static let cameraBody = """
    <section class="stage">
      <div class="viewfinder" id="viewfinder" aria-label="Live preview: tap to focus and expose">
        <img id="preview" alt="Live preview from the camera" draggable="false">
        <div id="focus-cursor" class="focus-cursor" aria-hidden="true"></div>
        <div class="hud">
          <span id="rec-badge" class="rec-badge"><span class="dot"></span><span id="rec-time">0:00.0</span></span>
          <span id="hud-filter" class="hud-chip">No filter</span>
        </div>
        <div class="segments" aria-label="Short video: up to 15 seconds">
          <div id="segment-fill" class="segment-fill"></div>
          <div id="segment-marks" class="segment-marks"></div>
        </div>
        <div id="flash" class="flash" aria-hidden="true"></div>
        <p id="preview-message" class="preview-message" hidden>Waiting for the camera…</p>
      </div>
      <div class="shutter-row">
        <button id="undo" class="side-button" type="button" aria-label="Undo the last segment">
          <svg viewBox="0 0 24 24" aria-hidden="true"><path d="M9 7H4V2M4.5 7A8 8 0 1 1 4 14"/></svg><span>Undo</span></button>
        <button id="reset" class="side-button" type="button" aria-label="Delete all segments">
          <svg viewBox="0 0 24 24" aria-hidden="true"><path d="M4 7h16M9 7V4h6v3M6 7l1 13h10l1-13"/></svg><span>Reset</span></button>
        <button id="photo" class="shutter photo" type="button" aria-label="Take a photo"><span></span></button>
        <button id="record" class="shutter record" type="button" aria-label="Hold to record"><span></span></button>
        <button id="save" class="side-button accent" type="button" aria-label="Save the short video">
          <svg viewBox="0 0 24 24" aria-hidden="true"><path d="M5 12l5 5L20 7"/></svg><span>Save</span></button>
        <a class="side-button gallery" href="/gallery" aria-label="Open the gallery">
          <svg viewBox="0 0 24 24" aria-hidden="true"><rect x="3" y="3" width="18" height="18" rx="3"/><path d="M3 16l5-5 4 4 3-3 6 6"/></svg><span>Gallery</span></a>
      </div>
      <p class="hint">Hold <b>record</b> to film, let go to pause; up to 15&nbsp;s in all. Tap the picture to focus there.</p>
      <p id="status-line" class="status-line" aria-live="off"></p>
      <section class="card controls-card">
        <h2>Controls</h2>
        <div id="controls" class="controls"></div>
      </section>
    </section>
    <aside class="panel">
      <section class="card">
        <h2>Look</h2>
        <label class="field"><span>Filter</span><select id="filter-select"></select></label>
        <button id="random-filter" class="wide" type="button">
          <svg viewBox="0 0 24 24" aria-hidden="true"><rect x="3" y="3" width="18" height="18" rx="4"/><circle cx="8" cy="8" r="1.5"/><circle cx="16" cy="16" r="1.5"/><circle cx="12" cy="12" r="1.5"/></svg>
          Random filter</button>
      </section>
      <section class="card">
        <h2>Camera</h2>
        <label class="field"><span>Camera</span><select id="camera-select"></select></label>
        <button id="switch-camera" class="wide" type="button">Switch camera</button>
        <p id="switch-reason" class="reason" hidden></p>
        <label class="field"><span>Microphone</span><select id="mic-select"></select></label>
        <label class="field"><span>Preset</span><select id="preset-select"></select></label>
      </section>
    </aside>
    <dialog id="photo-dialog" class="sheet">
      <h2>Photo saved</h2>
      <img id="photo-result" alt="The photo just taken">
      <p id="photo-caption" class="caption"></p>
      <div class="actions"><a class="button" href="/gallery">Open gallery</a><button class="primary" type="button" data-close>Done</button></div>
    </dialog>
    <dialog id="video-dialog" class="sheet">
      <h2>Your short video</h2>
      <video id="video-result" controls playsinline preload="auto"></video>
      <p id="video-caption" class="caption"></p>
      <div class="actions"><a class="button" href="/gallery">Open gallery</a><button class="primary" type="button" data-close>New video</button></div>
    </dialog>
    """

    static let galleryBody = """
    <section class="page-head">
      <div>
        <h1>Gallery</h1>
        <p id="gallery-summary" class="summary">Loading…</p>
      </div>
      <div class="segmented" role="group" aria-label="Show">
        <button type="button" data-kind="all" aria-pressed="true">All</button>
        <button type="button" data-kind="photo" aria-pressed="false">Photos</button>
        <button type="button" data-kind="video" aria-pressed="false">Videos</button>
      </div>
    </section>
    <div id="grid" class="grid"></div>
    <div id="empty" class="empty" hidden>
      <h2>Nothing here yet</h2>
      <p>Photos and short videos from the <a href="/">camera</a>, and compositions, appear here.</p>
    </div>
    <dialog id="viewer" class="sheet wide">
      <h2 id="viewer-title"></h2>
      <div id="viewer-media" class="viewer-media"></div>
      <div class="actions"><a id="viewer-download" class="button" href="#">Download</a><button class="primary" type="button" data-close>Close</button></div>
    </dialog>
    <dialog id="confirm" class="sheet">
      <h2>Delete this item?</h2>
      <p id="confirm-name" class="caption"></p>
      <div class="actions"><button type="button" data-close>Keep</button><button id="confirm-delete" class="danger" type="button">Delete</button></div>
    </dialog>
    """

    static let composeBody = """
    <section class="page-head">
      <div>
        <h1>Compose</h1>
        <p class="summary">Pick clips from the library, put them in order, choose a transition and a sticker, then export.</p>
      </div>
    </section>
    <div class="compose-grid">
      <section class="card">
        <h2><span class="step">1</span> Library clips</h2>
        <div id="clip-list" class="clip-list"></div>
        <p id="no-clips" class="reason" hidden>The library has no videos yet: record some on the <a href="/">camera</a>.</p>
      </section>
      <section class="card">
        <h2><span class="step">2</span> Order</h2>
        <ol id="order" class="order"></ol>
        <p id="order-empty" class="reason">Add clips with the + buttons.</p>
      </section>
      <section class="card">
        <h2><span class="step">3</span> Export</h2>
        <label class="field"><span>Transition</span><select id="transition"></select></label>
        <label class="field"><span>Transition length</span>
          <span class="range-row"><input id="transition-seconds" type="range" min="0.2" max="2" step="0.1" value="0.5"><output id="transition-value">0.5 s</output></span></label>
        <label class="field"><span>Sticker</span><select id="sticker"></select></label>
        <label class="field" id="sticker-text-row" hidden><span>Sticker text</span><input id="sticker-text" maxlength="40" value="Reel"></label>
        <label class="field" id="sticker-photo-row" hidden><span>Sticker photo</span><select id="sticker-photo"></select></label>
        <label class="field"><span>Preset</span><select id="compose-preset"></select></label>
        <button id="export" class="primary wide" type="button" disabled>Export</button>
        <div class="progress" aria-label="Export progress"><div id="export-fill"></div></div>
        <p id="export-status" class="caption" aria-live="polite"></p>
      </section>
      <section id="result" class="card result" hidden>
        <h2>Result</h2>
        <video id="result-video" controls playsinline preload="auto"></video>
        <p id="result-caption" class="caption"></p>
        <div class="actions"><a id="result-download" class="button" href="#">Download</a><a class="button" href="/gallery">Open gallery</a></div>
      </section>
    </div>
    """

    static let icon = """
    <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#ffcc00"/>\
    <circle cx="32" cy="32" r="17" fill="none" stroke="#15171c" stroke-width="6"/><circle cx="32" cy="32" r="6" fill="#15171c"/>\
    <circle cx="47" cy="17" r="4" fill="#ff3b30"/></svg>
    """
}
