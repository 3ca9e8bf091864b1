#!/usr/bin/env python3
"""faulty_adapter.py -- an exec adapter program that misbehaves on purpose, for tests.

Usage: faulty_adapter.py --mode MODE [--pid-file FILE] [--delay-ms N]

It speaks the exec adapter protocol (docs/exec-adapters.md). A good answer to a collect is
the signal base64(f"{adapter}:{request_id}"), where adapter is the name initialize gave;
initialize answers adapter_version "2.0.0", sdk_version "0.1.0". Unknown methods are
answered collection_failed. Unless the mode says otherwise the program exits 0 at the end of
stdin, at once: answers still waiting on a timer (slow, out-of-order) are dropped.

--pid-file FILE: at start, append this process's pid and a newline to FILE (spawn-child
also appends the grandchild's pid, on its own line, after it).

Modes:
  ok                everything answered properly
  crash-on-3rd      the 3rd collect (counted per process) is not answered: writes "crashing
                    on request 3" to stderr and exits 3
  hang              answers initialize, then reads collects and never answers them
  garbage           before each correct answer writes six bad lines: not JSON, truncated
                    JSON, 70000 'x', a JSON array, an answer to id 999999, a string id
  answer-twice      answers each collect twice: the correct signal, then base64(b"second")
  exit-during-init  reads initialize, writes "cannot load the SDK" to stderr, exits 2
  init-error        answers initialize with sdk_unavailable "no SDK on this device", then
                    reads (and answers nothing) until the end of stdin
  never-init        reads initialize and never answers anything; exits at the end of stdin
  flood-stderr      writes 5000 lines "noise N" to stderr at start and on every collect
                    (N counts on across the process), then answers properly
  out-of-order      answers collects with odd ids after --delay-ms (default 100), even ids
                    at once
  slow              answers every collect after --delay-ms (stays responsive meanwhile)
  ignore-sigterm    ignores SIGTERM, behaves as ok, and after the end of stdin sleeps
                    forever: only SIGKILL ends it
  graceful          behaves as ok, stays after the end of stdin, and on SIGTERM appends TERM
                    to --marker, takes 300 ms to clean up, appends DONE and exits 0
  no-read           answers initialize, then never reads stdin again (sleeps until killed),
                    so the daemon's writes fill the pipe
  spawn-child       starts a grandchild `sleep 300` (same process group, stdio on
                    /dev/null), appends its pid to --pid-file, then behaves as ok
  spawn-escapee     as spawn-child, but the grandchild calls setsid(): it leaves the
                    program's process group and session, out of reach of a signal to them
"""

import argparse
import base64
import json
import os
import signal
import subprocess
import sys
import threading
import time

MODES = [
    "ok", "crash-on-3rd", "hang", "garbage", "answer-twice", "exit-during-init",
    "init-error", "never-init", "flood-stderr", "out-of-order", "slow", "ignore-sigterm",
    "spawn-child", "no-read", "graceful", "spawn-escapee",
]

stdout_lock = threading.Lock()
stderr_lock = threading.Lock()


def write_line(text):
    """Writes one raw line to stdout and flushes it (timers write from other threads)."""
    with stdout_lock:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()


def send(message):
    write_line(json.dumps(message, separators=(",", ":")))


def log(text):
    with stderr_lock:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()


def append_pid(path, pid):
    with open(path, "a") as f:
        f.write("%d\n" % pid)
        f.flush()


def signal_of(adapter, request_id):
    return base64.b64encode(("%s:%s" % (adapter, request_id)).encode("utf-8")).decode("ascii")


class Fixture:
    def __init__(self, mode, delay_s):
        self.mode = mode
        self.delay_s = delay_s
        self.adapter = None
        self.collects = 0
        self.noise = 0
        self.init_failed = False

    def flood(self):
        for _ in range(5000):
            self.noise += 1
            sys.stderr.write("noise %d\n" % self.noise)
        sys.stderr.flush()

    def later(self, message):
        timer = threading.Timer(self.delay_s, send, args=(message,))
        timer.daemon = True  # do not keep the process alive after the end of stdin
        timer.start()

    def on_initialize(self, mid, params):
        if self.mode == "exit-during-init":
            log("cannot load the SDK")
            sys.stdout.flush()
            os._exit(2)
        if self.mode == "never-init":
            return
        self.adapter = params.get("adapter") if isinstance(params, dict) else None
        if self.mode == "init-error":
            self.init_failed = True
            send({"id": mid, "error": {"code": "sdk_unavailable",
                                       "message": "no SDK on this device"}})
            return
        send({"id": mid, "result": {"adapter_version": "2.0.0", "sdk_version": "0.1.0"}})
        if self.mode == "no-read":
            while True:
                time.sleep(3600)

    def on_collect(self, mid, params):
        self.collects += 1
        if self.mode in ("hang", "never-init") or self.init_failed:
            return  # never answered: the daemon must time out on its own
        if self.mode == "crash-on-3rd" and self.collects == 3:
            log("crashing on request 3")
            os._exit(3)
        if self.mode == "flood-stderr":
            self.flood()
        request_id = params.get("request_id") if isinstance(params, dict) else None
        answer = {"id": mid, "result": {"signal": signal_of(self.adapter, request_id)}}
        if self.mode == "garbage":
            write_line("this is not json")
            write_line('{"id":')
            write_line("x" * 70000)
            write_line("[1,2,3]")
            write_line('{"id":999999,"result":{"signal":"AA=="}}')
            write_line('{"id":"text"}')
            send(answer)
        elif self.mode == "answer-twice":
            send(answer)
            send({"id": mid, "result": {"signal": base64.b64encode(b"second").decode("ascii")}})
        elif self.mode == "out-of-order" and mid % 2 == 1:
            self.later(answer)
        elif self.mode == "slow":
            self.later(answer)
        else:
            send(answer)

    def on_line(self, line):
        if not line.strip():
            return
        try:
            message = json.loads(line)
        except ValueError:
            log("faulty_adapter: not JSON: %r" % line[:80])
            return
        if not isinstance(message, dict) or not isinstance(message.get("id"), int):
            log("faulty_adapter: no numeric id: %r" % line[:80])
            return
        mid = message["id"]
        method = message.get("method")
        params = message.get("params")
        if method == "initialize":
            self.on_initialize(mid, params)
        elif method == "collect":
            self.on_collect(mid, params)
        elif self.mode != "never-init":
            send({"id": mid, "error": {"code": "collection_failed",
                                       "message": "unknown method %s" % json.dumps(method)}})


def main():
    parser = argparse.ArgumentParser(description="An exec adapter that misbehaves on purpose.")
    parser.add_argument("--mode", required=True, choices=MODES)
    parser.add_argument("--pid-file")
    parser.add_argument("--delay-ms", type=int, default=100)
    parser.add_argument("--marker")
    args = parser.parse_args()

    if args.mode == "graceful":
        def on_term(signum, frame):
            with open(args.marker, "a") as marker:
                marker.write("TERM\n")
            time.sleep(0.3)
            with open(args.marker, "a") as marker:
                marker.write("DONE\n")
            os._exit(0)
        signal.signal(signal.SIGTERM, on_term)

    if args.mode == "ignore-sigterm":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if args.pid_file:
        append_pid(args.pid_file, os.getpid())
    if args.mode in ("spawn-child", "spawn-escapee"):
        child = subprocess.Popen(["sleep", "300"], stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 start_new_session=args.mode == "spawn-escapee")
        if args.pid_file:
            append_pid(args.pid_file, child.pid)

    fixture = Fixture(args.mode, max(args.delay_ms, 0) / 1000.0)
    if args.mode == "flood-stderr":
        fixture.flood()

    try:
        for line in sys.stdin.buffer:
            fixture.on_line(line)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())

    if args.mode in ("ignore-sigterm", "graceful"):
        # Short sleeps: a signal that lands just before a long sleep would wait for its end
        # (Python runs handlers between bytecodes, not inside the sleep it is entering).
        while True:
            time.sleep(0.05)
    # os._exit: do not wait for timer threads, and skip the interpreter's teardown (a
    # daemon thread writing during teardown can crash it).
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
