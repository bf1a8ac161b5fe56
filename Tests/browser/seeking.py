"""How the browser scripts read the picture a <video id="v"> shows at a time.

Reading at 'seeked', or a fixed wait after it, can read the frame shown before the seek:
under load Chromium's compositor presents the sought frame later. This waits until the
element has settled and presented, since the seek began, a frame whose media time is at
or before its current time (requestVideoFrameCallback); a seek that presents nothing new
(to the frame already shown) is read once it has been settled for 3 s.
"""


def seek_then(draw):
    """JavaScript for execute_async_script(script, time): seeks #v to the time, then runs
    `draw`, statements that read the element and end by calling done(...)."""
    return """
const t = arguments[0], done = arguments[arguments.length - 1], v = document.getElementById('v');
const draw = () => { %s };
const go = () => {
  let presented = null, finished = false;
  const finish = () => { if (!finished) { finished = true; draw(); } };
  const watch = (now, meta) => { presented = meta.mediaTime; if (!finished) v.requestVideoFrameCallback(watch); };
  const watching = typeof v.requestVideoFrameCallback === 'function';
  if (watching) v.requestVideoFrameCallback(watch);
  const started = performance.now();
  const poll = () => {
    if (finished) return;
    const settled = !v.seeking && v.readyState >= 2;
    const shown = !watching || (presented !== null && presented <= v.currentTime + 0.001 && presented > v.currentTime - 1);
    if (settled && (shown || performance.now() - started > 3000)) { finish(); return; }
    setTimeout(poll, 10);
  };
  v.currentTime = t;
  poll();
};
if (v.readyState >= 1) go(); else v.onloadedmetadata = go;
""" % draw
