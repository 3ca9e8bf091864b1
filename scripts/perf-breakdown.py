#!/usr/bin/env python3
"""Where a daemon's CPU time goes, from `perf script` output of a `perf record --call-graph
dwarf` of it: each sample is put in the first category (in the order below) that any frame of
its stack matches, and the shares are printed as a Markdown table.

    perf script -i perf.data -F comm,tid,ip,sym,dso | scripts/perf-breakdown.py [REQUESTS]

With REQUESTS (how many requests the daemon answered while it was recorded) and the recorded
seconds as a second argument, each share is also given in microseconds of CPU per request.
"""
import re
import sys

# (category, pattern over a frame's mangled or plain name); the first match wins.
CATEGORIES = [
    ("ephemeral key generation (X25519)", r"X25519PrivateKeyVACyKcf|EVP_PKEY_generate|EVP_PKEY_keygen"),
    ("X25519 derive", r"sharedSecret|EVP_PKEY_derive"),
    ("HPKE key schedule (HKDF)", r"KeySchedule|extractAndExpand|4HKDF|EVP_KDF|EVP_MAC"),
    ("AEAD seal", r"AEADCipher|HPKE.*Context.*seal|EVP_Encrypt|EVP_Cipher"),
    ("envelope base64 and framing", r"Base64URL|PlaintextFrame|base64EncodedString"),
    ("the signal payload's JSON", r"SignalPayload"),
    ("sealing, other (keys, copies, our wrapper)", r"EnvelopeSealer|12SignalCrypto"),
    ("the answer's JSON encoding", r"JSONResponse"),
    ("the request's JSON decoding", r"JSONRequest|StrictJSON"),
    ("the adapters (cache hits)", r"AdapterHost|SignalAdapter|FileSignalAdapter"),
    # Module prefixes of swift-metrics and swift-prometheus, and the daemon's own metrics types
    # (DaemonMetrics mangles as Daemon0A7Metrics); NIO's event-loop metrics delegate is not one.
    ("metrics", r"\$s7Metrics|\$s11CoreMetrics|\$s10Prometheus|Daemon0A7Metrics|CollectionMetrics|AdMetrics|"
     r"RouteMiddleware"),
    ("collector: task group, consent, bookkeeping", r"SignalCollector"),
    ("routing and middleware (Hummingbird)", r"Hummingbird|Middleware|Router|SignalRoutes|Daemon"),
    ("HTTP parsing and socket I/O (NIO)", r"NIO|llhttp|c_nio"),
    ("Swift concurrency runtime (jobs, actors, tasks)", r"swift_task|swift_job|swift::|_dispatch|swift_continuation"),
]


def samples(lines):
    stack = []
    for line in lines:
        if not line.strip():
            if stack:
                yield stack
            stack = []
        elif line.startswith((" ", "\t")):
            parts = line.split(None, 1)
            stack.append(parts[1] if len(parts) > 1 else "")
        # a header line (comm tid) starts a sample
    if stack:
        yield stack


def main():
    compiled = [(name, re.compile(pattern)) for name, pattern in CATEGORIES]
    counts = {}
    total = 0
    for stack in samples(sys.stdin):
        total += 1
        category = "kernel and libc, outside the above" if "[k]" in stack[0] or "kernel" in stack[0] else "other"
        for name, pattern in compiled:
            if any(pattern.search(frame) for frame in stack):
                category = name
                break
        counts[category] = counts.get(category, 0) + 1
    if total == 0:
        sys.exit("no samples on stdin: give the output of `perf script -F comm,tid,ip,sym,dso`")
    per_request = None
    if len(sys.argv) == 3:
        requests, seconds = int(sys.argv[1]), float(sys.argv[2])
        # CPU seconds sampled = samples / frequency is not known here: shares of the daemon's
        # CPU time per request, given the CPU time it used per request.
        per_request = seconds / requests * 1e6
    print(f"| where | share of samples ({total}) |" + (" µs CPU per request |" if per_request else ""))
    print("|---|---|" + ("---|" if per_request else ""))
    order = [name for name, _ in CATEGORIES] + ["kernel and libc, outside the above", "other"]
    for name in order:
        if name in counts:
            share = counts[name] / total
            row = f"| {name} | {share * 100:.1f}% |"
            if per_request:
                row += f" {share * per_request:.0f} |"
            print(row)


if __name__ == "__main__":
    main()
