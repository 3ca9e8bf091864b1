#!/usr/bin/env python3
"""Writes the daemon's function order (packaging/secure-signalsd.order): the functions the daemon
runs to start, to stay idle and to serve signals, ad loads and an ad's lifecycle, one mangled
name a line, which `make` gives lld (--symbol-ordering-file) so that they lie together at the
front of the code. Left scattered over 22 MiB of code, the 2.5 MiB the daemon runs touch most of
the binary's pages (the kernel maps 64 KiB around each page a process faults in), and those
pages are what its PSS is made of (docs/packaging.md, "The order of the code").

    python3 scripts/order-file.py --daemon .build/release/secure-signalsd

The daemon must be a release build with its symbol table (SwiftPM's, before `make` strips it).
It runs on the embedded default under valgrind's callgrind, which lists every function run in
any thread, twice on one state directory (the first start makes the database, the second
opens and checks it, as a device's every later start does); the list is written sorted (module by module), so that regenerating it after a
change shows that change in the diff. A function the list does not name is placed after those
it does: a stale list costs memory, never correctness. `--check` only reports how many of the
list's names the binary still has, and fails below --min-present.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from daemon_process import UnixConnection, stop

ORDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "packaging", "secure-signalsd.order")
NATIVE = {"ad_unit": "/21775744923/example/native", "format": "native", "force": True}
REWARDED = {"ad_unit": "/6499/example/rewarded", "format": "rewarded", "force": True}
PRIVACY = {
    "privacy": {
        "limit_ad_tracking": False,
        "tcf_consent": "CQujIwAQujIwAEsACBENCMFsAP_gAEPgAAYgF5wAQF5gXnABAXmAA.IF5wAQF5g",
        "gpp": "DBABTA~1YNN",
        "gpp_sid": [6],
        "us_privacy": "1YNN",
        "gdpr_applies": True,
    }
}


def call(socket_path, method, path, body=None):
    """One request; its status and decoded JSON (or None). A failure is printed."""
    connection = UnixConnection(socket_path, timeout=120)
    data = None if body is None else json.dumps(body)
    headers = {} if body is None else {"Content-Type": "application/json"}
    connection.request(method, path, body=data, headers=headers)
    response = connection.getresponse()
    text = response.read()
    connection.close()
    if response.status >= 300:
        print(f"order-file.py: {method} {path}: {response.status} {text[:300]!r}", file=sys.stderr)
    try:
        return response.status, json.loads(text)
    except ValueError:
        return response.status, None


def wait_ready(socket_path, daemon, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if daemon.poll() is not None:
            return False
        try:
            if call(socket_path, "GET", "/v1/health")[0] == 200:
                return True
        except OSError:
            pass
        time.sleep(0.2)
    return False


def workload(socket_path, rounds):
    """What an app asks of the daemon: its answers' statuses, for the caller to check."""
    statuses = [call(socket_path, "PUT", "/v1/privacy", PRIVACY)[0]]
    for path in ("/v1/adapters", "/v1/ad_units", "/v1/privacy/decoded", "/v1/recipients", "/v1/rewards"):
        statuses.append(call(socket_path, "GET", path)[0])
    for round in range(rounds):
        statuses.append(call(socket_path, "POST", "/v1/signals", {"request_id": f"order-{round}"})[0])
        status, native = call(socket_path, "POST", "/v1/ads", NATIVE)
        statuses.append(status)
        if native and "ad_id" in native:
            ad = f"/v1/ads/{native['ad_id']}"
            statuses.append(call(socket_path, "POST", ad + "/impression", {})[0])
            statuses.append(call(socket_path, "POST", ad + "/click", {"asset": "headline"})[0])
        status, rewarded = call(socket_path, "POST", "/v1/ads", REWARDED)
        statuses.append(status)
        if rewarded and "ad_id" in rewarded:
            ad = f"/v1/ads/{rewarded['ad_id']}"
            statuses.append(call(socket_path, "POST", ad + "/show", {})[0])
            for event in ("start", "midpoint", "complete"):
                statuses.append(call(socket_path, "POST", ad + "/progress", {"event": event})[0])
            statuses.append(call(socket_path, "POST", ad + "/dismiss", {})[0])
    statuses.append(call(socket_path, "GET", "/v1/inspect/loads")[0])
    return statuses


def functions(callgrind_out, binary_name):
    """The names callgrind saw run in `binary_name`: mangled, without its recursion marks."""
    names, current_object = set(), None
    with open(callgrind_out, errors="replace") as file:
        for line in file:
            if line.startswith("ob="):
                current_object = line[3:].strip()
            elif line.startswith("fn=") and current_object and os.path.basename(current_object) == binary_name:
                name = re.sub(r"'\d+$", "", line[3:].strip())
                if not name.startswith("0x"):
                    names.add(name)
    return names


def symbols(binary):
    """The binary's defined function symbols."""
    listing = subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True, check=True).stdout
    return {parts[2] for parts in (line.split() for line in listing.splitlines()) if len(parts) == 3 and parts[1] in "tTwW"}


def check(binary, order, min_present):
    with open(order) as file:
        wanted = [line.strip() for line in file if line.strip()]
    present = symbols(binary)
    if not present:
        print(f"order-file.py: {binary} has no symbol table (give the release build or its .debug file)", file=sys.stderr)
        return 1
    found = sum(name in present for name in wanted)
    share = found / len(wanted) if wanted else 0
    print(f"{order}: {found} of {len(wanted)} functions are in {binary} ({share:.0%})")
    if share < min_present:
        print(f"order-file.py: under {min_present:.0%}: run scripts/order-file.py again", file=sys.stderr)
        return 1
    return 0


def profile(binary, scratch, run, out, rounds):
    """One start of `binary` under callgrind (profile in `out`): ready, idle, `rounds` of the
    workload, stopped. The statuses it answered, or None (said why) when it failed."""
    socket_path = os.path.join(run, "secure-signals.sock")
    log_path = os.path.join(scratch, "daemon.log")
    log = open(log_path, "w")
    # Its own state directory, never the caller's; and no service manager to talk to.
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("STATE_DIRECTORY", "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID")}
    environment.update(XDG_RUNTIME_DIR=run, HOME=scratch, XDG_STATE_HOME=os.path.join(scratch, "state"))
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--dump-line=no",
               "--compress-strings=no", "--compress-pos=no", "--demangle=no", binary]
    daemon = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=environment)
    failed = True
    try:
        if not wait_ready(socket_path, daemon, 180):
            print("order-file.py: the daemon did not answer /v1/health", file=sys.stderr)
            return None
        time.sleep(3)  # its timers, as an idle daemon runs them
        statuses = workload(socket_path, rounds)
        bad = [status for status in statuses if status >= 300]
        if bad:
            print(f"order-file.py: {len(bad)} of {len(statuses)} requests failed: {sorted(set(bad))}", file=sys.stderr)
            return None
        time.sleep(3)
        failed = False
    finally:
        stop(daemon, log, log_path, failed)
    if daemon.returncode != 0 or not os.path.exists(out):
        print(f"order-file.py: the daemon exited {daemon.returncode} without a profile", file=sys.stderr)
        return None
    return statuses


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--daemon", required=True, help="the release daemon, with its symbol table")
    parser.add_argument("--out", default=ORDER, help="the order file (default: packaging/secure-signalsd.order)")
    parser.add_argument("--rounds", type=int, default=20, help="rounds of the workload (default 20)")
    parser.add_argument("--check", action="store_true", help="only report how much of --out the daemon still has")
    parser.add_argument("--min-present", type=float, default=0.9, help="--check's least share (default 0.9)")
    arguments = parser.parse_args()
    if arguments.check:
        return check(arguments.daemon, arguments.out, arguments.min_present)
    for tool, package in (("valgrind", "valgrind"), ("objcopy", "binutils"), ("nm", "binutils")):
        if shutil.which(tool) is None:
            print(f"order-file.py: {tool} is missing (apt-get install {package})", file=sys.stderr)
            return 1
    with tempfile.TemporaryDirectory(prefix="order-file.") as scratch:
        # valgrind 3.19 cannot read Swift 6's DWARF 5; the symbol table is all it needs.
        binary = os.path.join(scratch, "secure-signalsd")
        subprocess.run(["objcopy", "--strip-debug", arguments.daemon, binary], check=True)
        run = os.path.join(scratch, "run")
        os.mkdir(run)
        # Twice on one state directory: a first start makes the database, a second opens and
        # checks it, as every start of a device after its first does.
        names, statuses = set(), []
        for start, rounds in ((1, arguments.rounds), (2, 2)):
            out = os.path.join(scratch, f"callgrind.{start}.out")
            answered = profile(binary, scratch, run, out, rounds)
            if answered is None:
                return 1
            statuses += answered
            names |= functions(out, "secure-signalsd")
        names &= symbols(binary)
    with open(arguments.out, "w") as file:
        file.writelines(name + "\n" for name in sorted(names))
    print(f"{arguments.out}: {len(names)} functions ({len(statuses)} requests)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
