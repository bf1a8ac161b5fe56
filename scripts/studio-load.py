#!/usr/bin/env python3
"""Loads a running `reel studio` from loopback, as `make soak` does, and judges it.

    studio-load.py BASE_URL STUDIO_PID [SECONDS]

For SECONDS (120) it keeps 50 preview viewers on /api/preview.mjpg: 35 that read as fast
as they can, 10 slow ones that read 32 KB a second (far less than the stream), and 5 that
never read after the headers. Beside them, 4 clients call the API in a loop (status, state,
library, a single picture, the filter, now and then a photo) and 2 hold the event stream.
It samples the studio's resident memory once a second.

It passes when the capture dropped no frame, delivered about the frame rate times the time,
the fast viewers kept getting pictures, every API call succeeded, and memory after a 20 s
warm-up grew by less than 20 MB. It prints the figures and exits 1 if any check failed.
"""
import json
import socket
import sys
import threading
import time
import urllib.parse
import urllib.request

base, pid = sys.argv[1].rstrip("/"), int(sys.argv[2])
seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 120
host, port = urllib.parse.urlsplit(base).hostname, urllib.parse.urlsplit(base).port
stop = threading.Event()
lock = threading.Lock()
pictures = {"fast": [], "slow": []}
api_times, api_errors = [], []


def rss_kb():
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def status():
    with urllib.request.urlopen(base + "/api/status", timeout=10) as response:
        return json.load(response)


def viewer(kind):
    """One preview viewer on a raw socket, so that how fast it reads is ours to set."""
    boundary = b"--reelframe"
    sock = socket.create_connection((host, port), timeout=30)
    sock.sendall(f"GET /api/preview.mjpg HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
    count, carry = 0, b""
    try:
        if kind == "stalled":
            sock.recv(1024)
            stop.wait()
            return
        while not stop.is_set():
            chunk = sock.recv(65536 if kind == "fast" else 3200)
            if not chunk:
                break
            data = carry + chunk
            count += data.count(boundary)
            carry = data[-(len(boundary) - 1):]
            if kind == "slow":
                time.sleep(0.1)
    except OSError:
        pass
    finally:
        sock.close()
        if kind != "stalled":
            with lock:
                pictures[kind].append(count)


def api_client(number):
    calls = [("GET", "/api/status", None), ("GET", "/api/state", None), ("GET", "/api/library", None),
             ("GET", "/api/preview.jpg", None)]
    filters = ["PhotoEffectMono", "PhotoEffectChrome", "none"]
    n = 0
    while not stop.is_set():
        n += 1
        method, path, body = calls[n % len(calls)]
        if n % 7 == 0:
            method, path, body = "POST", "/api/filter", {"id": filters[(n // 7) % len(filters)]}
        if number == 0 and n % 150 == 0:
            method, path, body = "POST", "/api/photo", {}
        request = urllib.request.Request(base + path, method=method,
                                         data=json.dumps(body).encode() if body is not None else None,
                                         headers={"Origin": base, "Content-Type": "application/json"})
        began = time.time()
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                response.read()
            with lock:
                api_times.append(time.time() - began)
        except Exception as error:  # any failure is counted and shown
            with lock:
                api_errors.append(f"{method} {path}: {error}")
        time.sleep(0.02)


def events_listener():
    try:
        with urllib.request.urlopen(base + "/api/events", timeout=30) as response:
            while not stop.is_set() and response.readline():
                pass
    except OSError:
        pass


threads = [threading.Thread(target=viewer, args=("fast",)) for _ in range(35)]
threads += [threading.Thread(target=viewer, args=("slow",)) for _ in range(10)]
threads += [threading.Thread(target=viewer, args=("stalled",)) for _ in range(5)]
threads += [threading.Thread(target=api_client, args=(n,)) for n in range(4)]
threads += [threading.Thread(target=events_listener, daemon=True) for _ in range(2)]
before = status()
started = time.time()
for thread in threads:
    thread.start()
memory = []
while time.time() - started < seconds:
    time.sleep(1)
    memory.append((time.time() - started, rss_kb()))
during = status()
elapsed = time.time() - started
stop.set()
for thread in threads:
    if not thread.daemon:
        thread.join(timeout=40)

delivered = during["deliveredFrames"] - before["deliveredFrames"]
dropped = during["droppedFrames"] - before["droppedFrames"]
rate = during.get("frameRate") or 30
warm = [kb for t, kb in memory if t >= 20]
growth = (max(warm) - warm[0]) / 1024 if warm else 0
fast_rate = sorted(count / elapsed for count in pictures["fast"])
slow_rate = sorted(count / elapsed for count in pictures["slow"])
api_times.sort()


def median(values):
    return values[len(values) // 2] if values else 0


print(f"studio load: {elapsed:.0f} s, 50 viewers (35 fast, 10 slow, 5 stalled), 4 API clients, 2 event streams")
print(f"studio load: capture delivered {delivered} frames ({delivered / elapsed:.1f} fps), dropped {dropped}; "
      f"preview viewers at the end {during.get('previewViewers')}")
print(f"studio load: fast viewers {median(fast_rate):.1f} pictures/s median (lowest {fast_rate[0] if fast_rate else 0:.1f}), "
      f"slow viewers {median(slow_rate):.1f}/s")
print(f"studio load: {len(api_times)} API calls, median {median(api_times) * 1000:.0f} ms, "
      f"p99 {(api_times[int(len(api_times) * 0.99)] if api_times else 0) * 1000:.0f} ms, {len(api_errors)} failed")
marks = " ".join(f"{t:.0f}s:{kb // 1024}" for t, kb in memory[29::30])
print(f"studio load: RSS at 20 s {warm[0] // 1024 if warm else 0} MB, peak {max(kb for _, kb in memory) // 1024} MB, "
      f"growth after warm-up {growth:.1f} MB; every 30 s (MB): {marks}")
failures = []
if dropped != 0:
    failures.append(f"the capture dropped {dropped} frames")
if delivered < rate * elapsed * 0.97:
    failures.append(f"the capture delivered {delivered} frames in {elapsed:.0f} s")
if not fast_rate or fast_rate[0] < 5:
    failures.append("a fast viewer got fewer than 5 pictures a second")
if api_errors:
    failures.append(f"{len(api_errors)} API calls failed, the first: {api_errors[0]}")
if growth >= 20:
    failures.append(f"memory grew by {growth:.1f} MB after warm-up")
for failure in failures:
    print(f"studio load: FAIL: {failure}")
sys.exit(1 if failures else 0)
