#!/usr/bin/env python3
"""Where a daemon's CPU time goes, from `perf script` output of a `perf record --call-graph
dwarf` of it: each sample is put in the first category (in the order below) that any frame of
its stack matches, and the shares are printed as a Markdown table.

    perf script -i perf.data -F comm,tid,ip,sym,dso | scripts/perf-breakdown.py

The ephemeral key pool's refill thread, which works in idle time, is a category of its own.
"""
import re
import sys

# (category, pattern over a frame's mangled or plain name); the first match wins.
CATEGORIES = [
    ("the key pool's refill thread (idle time, not a request's)", r"EphemeralKeyPool.*refill|4Core6refill"),
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
     r"countRequest"),
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
    print(f"| where | share of samples ({total}) |")
    print("|---|---|")
    order = [name for name, _ in CATEGORIES] + ["kernel and libc, outside the above", "other"]
    for name in order:
        if name in counts:
            print(f"| {name} | {counts[name] / total * 100:.1f}% |")


if __name__ == "__main__":
    main()
