/// One style sheet for the three pages: dark, large type, thumb-sized targets.
extension StudioAssets {
    static let style = #"""
    :root {
      --bg: #0e1014; --panel: #171a21; --panel-2: #1f232c; --line: #2b303b; --text: #f2f4f8; --muted: #a4abb8;
      --accent: #ffcc00; --accent-text: #15171c; --red: #ff453a; --green: #30d158; --radius: 16px;
      --tap: 48px; font-size: 16px;
    }
    * { box-sizing: border-box; }
    [hidden] { display: none !important; }
    html, body { margin: 0; background: var(--bg); color: var(--text); }
    body { font-family: system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; line-height: 1.45;
      min-height: 100vh; -webkit-tap-highlight-color: transparent; }
    a { color: var(--accent); }
    h1 { font-size: 1.75rem; margin: 0 0 .25rem; letter-spacing: -.01em; }
    h2 { font-size: 1.05rem; margin: 0 0 .75rem; color: var(--text); font-weight: 650; }
    svg { width: 22px; height: 22px; fill: none; stroke: currentColor; stroke-width: 2; stroke-linecap: round; stroke-linejoin: round; }

    /* The bar */
    .bar { position: sticky; top: 0; z-index: 10; display: flex; align-items: center; gap: 1rem; padding: .6rem 1.25rem;
      background: rgba(14, 16, 20, .92); backdrop-filter: blur(8px); border-bottom: 1px solid var(--line); }
    .brand { display: flex; align-items: center; gap: .6rem; color: var(--text); text-decoration: none; font-weight: 700;
      font-size: 1.1rem; white-space: nowrap; }
    .tabs { display: flex; gap: .25rem; margin-left: auto; background: var(--panel); padding: 4px; border-radius: 999px; }
    .tabs a { display: inline-flex; align-items: center; min-height: 40px; padding: 0 1.1rem; border-radius: 999px;
      color: var(--muted); text-decoration: none; font-weight: 600; }
    .tabs a[aria-current="page"] { background: var(--accent); color: var(--accent-text); }
    .pill { font-size: .8rem; padding: .3rem .7rem; border-radius: 999px; background: var(--panel-2); color: var(--muted);
      white-space: nowrap; }
    .pill.live { color: var(--green); }
    .pill.live::before { content: "● "; }
    .pill.lost { color: var(--red); }

    main { max-width: 1440px; margin: 0 auto; padding: 1.25rem; }

    /* Controls */
    button, .button { font: inherit; font-weight: 600; min-height: var(--tap); padding: 0 1.1rem; border-radius: 12px;
      border: 1px solid var(--line); background: var(--panel-2); color: var(--text); cursor: pointer; display: inline-flex;
      align-items: center; justify-content: center; gap: .5rem; text-decoration: none; }
    button:hover:not(:disabled), .button:hover { border-color: #4a5160; }
    button:disabled { opacity: .45; cursor: not-allowed; }
    button:focus-visible, a:focus-visible, select:focus-visible, input:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
    button.primary { background: var(--accent); color: var(--accent-text); border-color: var(--accent); }
    button.danger { background: var(--red); border-color: var(--red); color: white; }
    button.wide, .wide { width: 100%; }
    select, input[type="text"], input:not([type]), input[type="number"] { font: inherit; width: 100%; min-height: var(--tap);
      padding: 0 .8rem; border-radius: 12px; border: 1px solid var(--line); background: var(--bg); color: var(--text); }
    input[type="range"] { width: 100%; height: var(--tap); accent-color: var(--accent); margin: 0; }
    .field { display: grid; gap: .35rem; margin-bottom: .9rem; }
    .field > span:first-child { color: var(--muted); font-size: .9rem; font-weight: 600; }
    .range-row { display: flex; align-items: center; gap: .75rem; }
    .range-row output { min-width: 3.5rem; text-align: right; font-variant-numeric: tabular-nums; }
    .card { background: var(--panel); border: 1px solid var(--line); border-radius: var(--radius); padding: 1.1rem; }
    .reason { color: var(--muted); font-size: .88rem; margin: .35rem 0 .9rem; }
    .caption { color: var(--muted); margin: .5rem 0; overflow-wrap: anywhere; }

    /* Camera */
    main.camera { display: grid; grid-template-columns: minmax(0, 1fr) 360px; gap: 1.25rem; align-items: start; }
    .panel { display: grid; gap: 1rem; }
    .viewfinder { position: relative; aspect-ratio: 16 / 9; background: #000; border-radius: var(--radius); overflow: hidden;
      cursor: crosshair; touch-action: manipulation; user-select: none; }
    .viewfinder img { position: absolute; inset: 0; width: 100%; height: 100%; object-fit: contain; display: block; }
    .preview-message { position: absolute; inset: 0; display: grid; place-items: center; margin: 0; color: var(--muted); }
    .hud { position: absolute; top: 12px; left: 12px; right: 12px; display: flex; justify-content: space-between; pointer-events: none; }
    .rec-badge, .hud-chip { background: rgba(0, 0, 0, .6); padding: .3rem .75rem; border-radius: 999px; font-weight: 650;
      font-variant-numeric: tabular-nums; }
    .rec-badge .dot { display: inline-block; width: 10px; height: 10px; border-radius: 50%; background: #777; margin-right: .45rem; }
    .rec-badge.on .dot { background: var(--red); animation: blink 1s infinite; }
    @keyframes blink { 50% { opacity: .25; } }
    .segments { position: absolute; left: 12px; right: 12px; bottom: 12px; height: 8px; border-radius: 4px;
      background: rgba(255, 255, 255, .25); overflow: hidden; pointer-events: none; }
    .segment-fill { height: 100%; width: 0; background: var(--red); transition: width .2s linear; }
    .segment-marks { position: absolute; inset: 0; }
    .segment-marks i { position: absolute; top: 0; bottom: 0; width: 2px; background: #fff; }
    .focus-cursor { position: absolute; width: 84px; height: 84px; margin: -42px 0 0 -42px; border: 2px solid var(--accent);
      border-radius: 8px; opacity: 0; pointer-events: none; }
    .focus-cursor.show { animation: focus 1.1s ease-out forwards; }
    @keyframes focus { 0% { transform: scale(1.6); opacity: 0; } 15% { opacity: 1; } 35% { transform: scale(1); }
      45% { transform: scale(1.08); } 55% { transform: scale(1); } 85% { opacity: 1; } 100% { opacity: .0; } }
    .flash { position: absolute; inset: 0; background: white; opacity: 0; pointer-events: none; }
    .flash.go { animation: flash .35s ease-out; }
    @keyframes flash { 0% { opacity: .9; } 100% { opacity: 0; } }
    .shutter-row { display: flex; align-items: center; justify-content: center; gap: 1rem; margin: 1rem 0 .5rem; flex-wrap: nowrap; }
    .side-button { display: inline-flex; flex-direction: column; text-decoration: none; gap: .15rem; min-width: 64px; min-height: 64px; padding: .4rem .6rem; font-size: .8rem;
      border-radius: 14px; background: var(--panel); color: var(--text); }
    .side-button.accent { color: var(--accent); }
    .shutter { width: 76px; height: 76px; border-radius: 50%; padding: 0; border: 4px solid #fff; background: transparent;
      flex: none; touch-action: none; }
    .shutter span { display: block; width: 58px; height: 58px; border-radius: 50%; background: #fff; transition: transform .15s, border-radius .15s; }
    .shutter.record span { background: var(--red); }
    .shutter.record.held span { transform: scale(.62); border-radius: 12px; }
    .shutter.photo:active:not(:disabled) span { transform: scale(.9); }
    .hint { text-align: center; color: var(--muted); margin: .25rem 0; }
    .status-line { text-align: center; color: var(--muted); font-size: .85rem; font-variant-numeric: tabular-nums; margin: .25rem 0; min-height: 1.3em; }
    .status-line .bad { color: var(--red); }
    .controls-card { margin-top: 1rem; }
    .controls { display: grid; gap: .9rem 1.5rem; grid-template-columns: repeat(auto-fill, minmax(210px, 1fr)); }
    .control { display: grid; gap: .3rem; }
    .control .head { display: flex; justify-content: space-between; align-items: center; gap: .5rem; font-weight: 600; }
    .control .head output { color: var(--muted); font-variant-numeric: tabular-nums; }
    .control.off .head { color: var(--muted); }
    .control .why { color: var(--muted); font-size: .82rem; margin: 0; }
    .switch { position: relative; width: 56px; height: 32px; border-radius: 999px; min-height: 32px; padding: 0; background: #3a3f4b; border: none; flex: none; }
    .switch::after { content: ""; position: absolute; top: 3px; left: 3px; width: 26px; height: 26px; border-radius: 50%; background: white; transition: left .15s; }
    .switch[aria-checked="true"] { background: var(--green); }
    .switch[aria-checked="true"]::after { left: 27px; }
    .segmented { display: inline-flex; background: var(--panel); border: 1px solid var(--line); border-radius: 12px; padding: 3px; gap: 3px; }
    .segmented button { border: none; background: transparent; min-height: 42px; color: var(--muted); }
    .segmented button[aria-pressed="true"] { background: var(--panel-2); color: var(--text); }

    /* Dialogs */
    dialog.sheet { background: var(--panel); color: var(--text); border: 1px solid var(--line); border-radius: 20px; padding: 1.25rem;
      width: min(640px, calc(100vw - 2rem)); max-height: calc(100vh - 2rem); }
    dialog.sheet.wide { width: min(960px, calc(100vw - 2rem)); }
    dialog::backdrop { background: rgba(0, 0, 0, .7); }
    dialog img, dialog video, .viewer-media img, .viewer-media video { display: block; width: 100%; max-height: 62vh; object-fit: contain;
      background: #000; border-radius: 12px; }
    .actions { display: flex; gap: .75rem; justify-content: flex-end; margin-top: 1rem; flex-wrap: wrap; }

    /* Gallery */
    .page-head { display: flex; justify-content: space-between; align-items: end; gap: 1rem; margin-bottom: 1.25rem; flex-wrap: wrap; }
    .summary { color: var(--muted); margin: 0; }
    .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(240px, 1fr)); gap: 1rem; }
    .item { background: var(--panel); border: 1px solid var(--line); border-radius: var(--radius); overflow: hidden; display: flex; flex-direction: column; }
    .item .thumb { position: relative; aspect-ratio: 16 / 10; background: #000; border: none; padding: 0; border-radius: 0; min-height: 0; width: 100%; }
    .item .thumb img { width: 100%; height: 100%; object-fit: cover; display: block; }
    .badge { position: absolute; left: 8px; bottom: 8px; background: rgba(0, 0, 0, .7); padding: .15rem .55rem; border-radius: 999px;
      font-size: .8rem; font-weight: 650; font-variant-numeric: tabular-nums; }
    .item .meta { padding: .7rem .9rem .2rem; }
    .item .name { font-weight: 600; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    .item .sub { color: var(--muted); font-size: .85rem; }
    .item .row { display: flex; gap: .5rem; padding: .6rem .9rem .9rem; margin-top: auto; }
    .item .row > * { flex: 1; }
    .empty { text-align: center; padding: 4rem 1rem; color: var(--muted); background: var(--panel); border-radius: var(--radius); }

    /* Compose */
    .compose-grid { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 1rem; align-items: start; }
    .compose-grid .result { grid-column: 1 / -1; }
    .step { display: inline-grid; place-items: center; width: 26px; height: 26px; border-radius: 50%; background: var(--accent);
      color: var(--accent-text); font-size: .85rem; margin-right: .35rem; }
    .clip-list { display: grid; gap: .6rem; max-height: 60vh; overflow: auto; }
    .clip { display: grid; grid-template-columns: 88px minmax(0, 1fr) auto; gap: .75rem; align-items: center; background: var(--panel-2);
      border-radius: 12px; padding: .45rem; }
    .clip img { width: 88px; height: 55px; object-fit: cover; border-radius: 8px; background: #000; display: block; }
    .clip .name { font-weight: 600; font-size: .92rem; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    .clip .sub { color: var(--muted); font-size: .82rem; }
    .clip button { min-width: var(--tap); padding: 0 .6rem; }
    .order { list-style: none; margin: 0; padding: 0; display: grid; gap: .6rem; counter-reset: clip; }
    .order .clip { grid-template-columns: 28px 88px minmax(0, 1fr) auto; }
    .order .clip::before { counter-increment: clip; content: counter(clip); font-weight: 700; color: var(--accent); text-align: center; }
    .order .buttons { display: flex; gap: .3rem; }
    .progress { height: 10px; border-radius: 5px; background: var(--panel-2); overflow: hidden; margin-top: 1rem; }
    .progress div { height: 100%; width: 0; background: var(--accent); transition: width .25s; }
    .result video { width: 100%; max-height: 70vh; background: #000; border-radius: 12px; }

    .toast { position: fixed; left: 50%; bottom: 24px; transform: translateX(-50%) translateY(20px); background: #262b35; color: var(--text);
      border: 1px solid var(--line); padding: .8rem 1.2rem; border-radius: 14px; opacity: 0; transition: opacity .2s, transform .2s;
      pointer-events: none; max-width: calc(100vw - 2rem); z-index: 20; box-shadow: 0 8px 30px rgba(0, 0, 0, .5); }
    .toast.show { opacity: 1; transform: translateX(-50%); }
    .toast.error { border-color: var(--red); }

    @media (max-width: 1100px) { .compose-grid { grid-template-columns: 1fr 1fr; } }
    @media (max-width: 900px) {
      main.camera { grid-template-columns: minmax(0, 1fr); }
      .compose-grid { grid-template-columns: 1fr; }
    }
    @media (max-width: 600px) {
      main { padding: .75rem; }
      .bar { padding: .5rem .75rem; gap: .5rem; flex-wrap: wrap; }
      .brand span { display: none; }
      .tabs { margin-left: 0; flex: 1; justify-content: space-between; }
      .tabs a { padding: 0 .9rem; flex: 1; justify-content: center; }
      .pill { display: none; }
      .viewfinder { border-radius: 12px; }
      .shutter-row { gap: .5rem; }
      .side-button { min-width: 56px; padding: .3rem .2rem; font-size: .75rem; }
      .side-button.gallery { display: none; }
      .shutter { width: 70px; height: 70px; }
      .shutter span { width: 52px; height: 52px; }
      .grid { grid-template-columns: 1fr 1fr; gap: .6rem; }
      .item .row { flex-direction: column; padding: .5rem; }
      .item .meta { padding: .5rem .6rem 0; }
      h1 { font-size: 1.5rem; }
    }
    """#
}
