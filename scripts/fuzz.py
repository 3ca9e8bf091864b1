#!/usr/bin/env python3
"""A bounded fuzzer for secure-signalsd's HTTP/1.1 JSON API over its Unix socket.

What: for `--seconds`, sends a deterministic (from `--seed`) mix of two kinds of cases:
  json:*  well-formed requests to every route of the routes table in docs/api.md, whose JSON
          bodies (from the golden transcripts and the docs' examples) are mutated: keys dropped
          or added, wrong types, huge numbers, long strings, deep nesting, invalid UTF-8,
          truncation, trailing commas, duplicate keys, empty bodies, wrong Content-Type ...
  raw:*   broken HTTP on a raw AF_UNIX socket: bad chunked encoding, conflicting Content-Length,
          oversized or many headers, garbage request lines, unknown methods, HTTP/0.9 and 1.0,
          pipelining, bodies over the 64 KiB limit, HEAD, requests cut off midway.
A FAILURE is a 5xx, a 4xx without the documented `{"error": {"code", "message"}}` JSON body
(or a 405 without `Allow`), an unparseable answer, no answer within `--case-timeout`, a
well-formed request closed without an answer, the daemon dying, or its socket refusing
connections. A raw request that cannot carry an answer may be closed unanswered: that is
counted apart, not a failure. Exits 0 without failures, 1 with.

Why: the routes, the body decoding and Hummingbird/NIO's HTTP parser must answer every
client, however broken, with a documented error, and never crash or stall the daemon that
every app on the device shares. Routes are read from docs/api.md, so new ones are fuzzed
without editing this script. Python 3.11 standard library only.
"""
import argparse, copy, http.client, io, json, os, random, re, shutil, signal, socket, subprocess, sys, tempfile, time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

REPO = Path(__file__).resolve().parent.parent
SNIP = 300            # bytes of a body or reproducer shown
BODY_LIMIT = 64 * 1024
# Ad units of the generated configuration: test and house networks only, nothing on the network.
# No unit whose waterfall errors: its documented 502/504 would be reported as 5xx failures.
AD_UNITS = {
    "/6499/example/rewarded": ("rewarded", [("test", "/6499/example/rewarded", {})]),
    "/21775744923/example/native": ("native", [("test", "/21775744923/example/native", {})]),
    "/21775744923/example/native-backfill": ("native", [("test", "/21775744923/example/native-backfill", {})]),
    "/fuzz/house-native": ("native", [("test", "/21775744923/example/native", {"behavior": "no_fill"}),
                                      ("house", "*", {})]),
    "/fuzz/house-rewarded": ("rewarded", [("house", "coins", {})]),
    "/fuzz/no-fill": ("native", [("test", "/21775744923/example/native", {"behavior": "no_fill"})]),
}
GARBAGE_SEGMENTS = ["nope", "", "%00", "%ff%fe", "..", "%2e%2e%2f%2e%2e", "a" * 4096, "%C3%A9t%C3%A9", "-1",
                    "00000000-0000-0000-0000-000000000000", "%7Bid%7D", ";x=1", "%0d%0aX-Injected:%201", "NaN"]
QUERIES = ["?", "?ad_unit=", "?ad_unit=%zz", "?a=b&&&=", "?ad_id=" + "x" * 5000, "?%00=%00", "#frag"]
CONTENT_TYPES = [None, "text/plain", "application/json; charset=utf-8", "Application/JSON", "application/jsonx",
                 "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "", "*/*",
                 "application/json; charset=latin-1", "application/problem+json", "application/json\x00"]
VALUES = {  # raw JSON text put in place of one value of a valid body
    "type_string": [b'"1"', b'"true"', b'""', b'"405"'], "type_float": [b"1.5", b"405.0", b"1e2", b"-0.0"],
    "type_null": [b"null"], "type_array": [b"[]", b'[1,"a",null]', b"[[[]]]"],
    "type_object": [b"{}", b'{"a":1}'], "type_bool": [b"true", b"false"],
    "huge_number": [b"1e400", b"18446744073709551616", b"9223372036854775808", b"-9223372036854775809",
                    b"1" + b"0" * 400, b"1e-400"],
    "negative_number": [b"-1", b"-405", b"-2147483649", b"-0"],
    "bad_number": [b"NaN", b"Infinity", b"01", b"+1", b".5", b"1.", b"0x10"],
    "odd_string": [b'"\\u0000"', b'"\\ud800"', b'"\\udc00\\ud800"', '"\U0001F600\u202e"'.encode(), b'"\\n\\r\\t"',
                   b'"../../etc/passwd"', b'"%s%n"', b'"\\x41"'],
    "invalid_utf8": [b'"a\xffb"', b'"\xc3\x28"', b'"\xed\xa0\x80"', b'"\xc0\xaf"', b'"\xf8\x88\x80\x80\x80"'],
    "long_string": [b'"' + b"A" * n + b'"' for n in (300, 4096, 65000, 70000)],
    "deep_nesting": [b"[" * d + b"]" * d for d in (32, 512, 4096, 30000)]
                    + [b'{"a":' * d + b"1" + b"}" * d for d in (512, 10000)],
}
JSON_KINDS = list(VALUES) + ["valid", "drop_key", "add_key", "truncated", "trailing_comma", "duplicate_key",
                             "empty_body", "content_type", "not_object", "trailing_garbage", "bom", "comment",
                             "bitflip", "wrong_method", "path_garbage", "query"]
RAW_KINDS = ["chunk_bad_size", "chunk_missing_crlf", "chunk_size_mismatch", "chunk_unterminated", "chunked_valid",
             "chunked_over_limit", "te_and_cl", "te_unknown", "cl_conflict", "cl_invalid", "cl_too_long",
             "cl_too_short", "oversized_header", "long_target", "many_headers", "bad_header", "garbage_line",
             "unknown_method", "http09", "http10", "missing_host", "pipelined", "pipelined_bad",
             "body_over_limit", "head", "cut_off", "expect_continue"]


def snip(data: bytes) -> str:
    """A repr of at most SNIP bytes, so reproducers and bodies stay readable (and secrets short)."""
    return repr(data[:SNIP]) + (f" ... ({len(data)} bytes)" if len(data) > SNIP else "")


@dataclass(frozen=True)
class Route:
    method: str
    pattern: str

    def __str__(self):
        return f"{self.method} {self.pattern}"

    def matches(self, path: str) -> bool:
        parts = re.split(r"\{\w+\}", self.pattern)
        return re.fullmatch("[^/]+".join(map(re.escape, parts)), path) is not None


def read_routes(doc: str) -> list[Route]:
    """The rows of the table under `## Routes` in docs/api.md."""
    section = doc.split("\n## Routes", 1)[1].split("\n## ", 1)[0]
    return [Route(m, p) for m, p in re.findall(r"^\|\s*`([A-Z]+)`\s*\|\s*`(/[^`]*)`", section, re.M)]


def read_seeds(doc: str, routes: list[Route]) -> tuple[dict, dict]:
    """Valid bodies per route: golden transcripts answered 2xx (trusted), and the JSON examples of
    each route's section in docs/api.md (candidates, kept if the daemon accepts them)."""
    golden: dict[Route, list] = {}
    for file in sorted((REPO / "Tests/Fixtures/golden").glob("*.txt")):
        lines = file.read_text().split("\n")
        request, status = re.fullmatch(r"([A-Z]+) (\S+)", lines[0]), re.search(r"^HTTP (\d+)$", "\n".join(lines), re.M)
        if not request or not status or not status.group(1).startswith("2") or lines[1].startswith("("):
            continue
        body = lines[1].encode() or None
        for route in routes:
            if route.method == request.group(1) and route.matches(request.group(2)) and body not in golden.get(route, []):
                golden.setdefault(route, []).append(body)
    candidates: dict[Route, list] = {}
    for section in re.split(r"^## ", doc, flags=re.M)[1:]:
        heading, _, text = section.partition("\n")
        for method, path in re.findall(r"`([A-Z]+) (/[^`]*)`", heading):
            if Route(method, path) in routes and method in ("POST", "PUT", "PATCH"):
                for block in re.findall(r"```json\n(.*?)```", text, re.S):
                    try:
                        candidates.setdefault(Route(method, path), []).append(json.dumps(json.loads(block)).encode())
                    except ValueError:
                        pass
    return golden, candidates


def request(method: str, target: str, body: bytes | None = None, ctype: str | None = "application/json",
            headers: list = (), version: str = "HTTP/1.1", host: bool = True, length: bool = True) -> bytes:
    """One HTTP request's bytes (header text is latin-1, so any byte can be put in)."""
    lines = [f"{method} {target} {version}"] + (["Host: localhost"] if host else [])
    if body is not None and ctype is not None:
        lines.append(f"Content-Type: {ctype}")
    if body is not None and length:
        lines.append(f"Content-Length: {len(body)}")
    lines += [f"{k}: {v}" for k, v in headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body or b"")


@dataclass
class Case:
    route: str                  # the route pattern it aims at, "-" for none
    kind: str                   # "json:..." or "raw:..."
    data: bytes                 # everything sent
    methods: list               # one per request sent: how many answers to read, and HEAD's
    may_close: bool = False     # the request cannot carry an answer: closing unanswered is fine
    half_close: bool = False    # shut down our writing side after sending, so the daemon sees EOF


@dataclass
class Outcome:
    answers: list = field(default_factory=list)   # (status, headers, body)
    error: str | None = None                      # "closed", "timeout", "unparseable: ...", "connect: ..."


class _KeepOpen(io.BufferedReader):
    """A socket reader HTTPResponse cannot close, so pipelined answers are read from one buffer."""
    def close(self):
        pass


def exchange(path: str, case: Case, timeout: float) -> Outcome:
    """Sends a case on a new connection and reads one answer per request, within `timeout` in all."""
    deadline, out = time.monotonic() + timeout, Outcome()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        try:
            s.connect(path)
        except OSError as e:
            return Outcome(error=f"connect: {e}")
        try:
            s.sendall(case.data)
            if case.half_close:
                s.shutdown(socket.SHUT_WR)
        except OSError:
            pass  # it may have answered early (413, 400) and closed or stopped reading: read that answer
        reader = _KeepOpen(socket.SocketIO(s, "rb"))
        for method in case.methods:
            s.settimeout(max(0.01, deadline - time.monotonic()))
            response = http.client.HTTPResponse(SimpleNamespace(makefile=lambda *a, **k: reader), method=method)
            try:
                response.begin()
                streaming = (response.getheader("Content-Type") or "").startswith("text/event-stream")
                body = b"" if streaming else response.read()  # an event stream never ends
            except TimeoutError:  # say so when the head came but its body never ended
                began = isinstance(response.status, int)
                out.error = f"timeout: {response.status} head came, its body never ended" if began else "timeout"
            except (http.client.RemoteDisconnected, ConnectionError):
                out.error = "closed"
            except (http.client.HTTPException, ValueError, OSError) as e:
                out.error = f"unparseable: {type(e).__name__}: {str(e)[:120]}"
            if out.error:
                return out
            out.answers.append((response.status, response.headers, body))
            if streaming:
                break
    return out


def error_body_problem(status: int, headers, body: bytes) -> str | None:
    """Why an error answer is not docs/api.md's `{"error": {"code", "message"}}` JSON, if it is not."""
    if not (headers.get("Content-Type") or "").startswith("application/json"):
        return f"{status} with Content-Type {headers.get('Content-Type')!r}, not application/json"
    try:
        error = json.loads(body).get("error")
    except (ValueError, AttributeError):
        return f"{status} with a body that is not a JSON object"
    if not isinstance(error, dict) or not isinstance(error.get("code"), str) or not error["code"] \
            or not isinstance(error.get("message"), str):
        return f'{status} without {{"error": {{"code", "message"}}}}'
    if status == 405 and not headers.get("Allow"):
        return "405 without Allow"
    return None


class Daemon:
    """secure-signalsd started on a configuration in a temporary directory (test and house networks,
    built-in adapters, the demo key), its log in that directory."""

    def __init__(self, binary: str):
        self.dir = Path(tempfile.mkdtemp(prefix="ssfz-"))
        self.socket = str(self.dir / "d.sock")
        (self.dir / "house").mkdir()
        (self.dir / "house/spring.json").write_text(json.dumps({"format": "native", "click_url": "https://example.com/s",
                                                                "native": {"headline": "Spring sale", "body": "All week"}}))
        (self.dir / "house/coins.json").write_text(json.dumps({"format": "rewarded", "click_url": "https://example.com/c",
                                                               "reward": {"type": "coins", "amount": 5}}))
        (self.dir / "segments.json").write_text('{"segments": [1, 2, 3]}')
        self.adapters = ["device-context", "first-party-id", "segments", "missing-file"]
        config = {
            "socket": {"path": self.socket}, "state_directory": str(self.dir / "state"),
            "recipients": {"demo": {"key_configs": [str(REPO / "keys/demo/demo.keyconfig")]}},
            "adapters": [{"name": "device-context", "recipients": ["demo"]},
                         {"name": "first-party-id", "recipients": ["demo"], "cache_ttl_ms": 60000},
                         {"name": "segments", "type": "file", "recipients": ["demo"], "options": {"path": "segments.json"}},
                         {"name": "missing-file", "type": "file", "recipients": ["demo"], "options": {"path": "nope.bin"}}],
            "ad_networks": {"test": {}, "house": {"setup": {"directory": "house"}}},
            "ad_units": {unit: {"format": fmt, "waterfall": [{"network": n, "parameter": p, "options": o}
                                                             for n, p, o in items]}
                         for unit, (fmt, items) in AD_UNITS.items()},
        }
        self.config = self.dir / "daemon.json"
        self.config.write_text(json.dumps(config, indent=2))
        env = {k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID",
                                                                 "LISTEN_PID", "LISTEN_FDS")}
        self.log = self.dir / "daemon.log"
        with open(self.log, "wb") as log:  # its own session: our Ctrl-C does not reach it, we stop it
            self.proc = subprocess.Popen([binary, "--config", str(self.config)], stdout=log, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, env=env, start_new_session=True)

    def wait_for_socket(self, timeout: float = 30):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                sys.exit(f"fuzz: the daemon exited with {self.proc.returncode} at start:\n{self.log_tail()}")
            if accepts(self.socket):
                return
            time.sleep(0.05)
        self.proc.kill()
        sys.exit(f"fuzz: no socket after {timeout} s:\n{self.log_tail()}")

    def stop(self) -> str | None:
        """SIGTERM, then what went wrong if it did not exit 0 within 20 s (it drains within 15 s)."""
        if self.proc.poll() is not None:
            return f"the daemon had already exited with {self.proc.returncode}"
        self.proc.send_signal(signal.SIGTERM)
        try:
            status = self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return "the daemon was still running 20 s after SIGTERM (killed)"
        return None if status == 0 else f"the daemon exited with {status} after SIGTERM"

    def log_tail(self, lines: int = 15) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])


def accepts(path: str) -> bool:
    """Whether something accepts connections on the Unix socket `path`."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(5)
        try:
            s.connect(path)
            return True
        except OSError:
            return False


def slots(obj, path=()):
    """Paths to every value inside a JSON object or array."""
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else []
    for key, value in items:
        yield path + (key,)
        yield from slots(value, path + (key,))


class Fuzzer:
    """Makes the cases (deterministically from the seed), sends them and judges the answers."""

    def __init__(self, args, routes, seeds, daemon, started):
        self.args, self.routes, self.seeds, self.daemon, self.started = args, routes, seeds, daemon, started
        self.rng, self.adapters, self.ad_units, self.ad_ids = random.Random(args.seed), [], [], []
        self.per_route, self.per_kind, self.statuses, self.closed = Counter(), Counter(), Counter(), Counter()
        self.failures: dict[tuple, dict] = {}
        self.fuzzed = self.stop_seconds = 0.0
        self.gone = False

    def prepare(self, candidates: dict):
        """Learns the adapter names and ad units (from our configuration, else from the daemon and
        the seeds), and keeps the docs' example bodies that the daemon accepts as seeds."""
        if self.daemon:
            self.adapters, self.ad_units = self.daemon.adapters, [(u, f) for u, (f, _) in AD_UNITS.items()]
        else:
            answers = self.call("GET", "/v1/adapters").answers
            self.adapters = [a["name"] for a in json.loads(answers[0][2])["adapters"]] if answers else []
            loads = [json.loads(b) for b in self.seeds.get(Route("POST", "/v1/ads"), [])]
            self.ad_units = sorted({(load["ad_unit"], load["format"]) for load in loads})
        for route, bodies in candidates.items():
            for body in bodies:
                answers = self.call(route.method, route.pattern, body).answers
                if answers and 200 <= answers[0][0] < 300 and body not in self.seeds.get(route, []):
                    self.seeds.setdefault(route, []).append(body)

    def call(self, method, path, body=None) -> Outcome:
        """A setup request, not counted: harvests ad ids."""
        outcome = exchange(self.args.socket, Case("-", "setup", request(method, path, body), [method]), self.args.case_timeout)
        self.harvest(outcome)
        return outcome

    def harvest(self, outcome: Outcome):
        for _, _, body in outcome.answers:
            try:
                ad_id = json.loads(body).get("ad_id")
            except (ValueError, AttributeError):
                continue
            if isinstance(ad_id, str) and ad_id not in self.ad_ids:
                self.ad_ids = (self.ad_ids + [ad_id])[-24:]

    def load_ads(self):
        for unit, fmt in self.ad_units:
            self.call("POST", "/v1/ads", json.dumps({"ad_unit": unit, "format": fmt, "force": True}).encode())

    def fill(self, pattern: str, garbage: bool = False) -> str:
        """The pattern with its {parameters} replaced: real ad ids and adapter names, or garbage."""
        def value(match):
            pool = {"id": self.ad_ids, "name": self.adapters}.get(match.group(1)) or []
            return self.rng.choice(pool) if pool and not garbage else self.rng.choice(GARBAGE_SEGMENTS)
        return re.sub(r"\{(\w+)\}", value, pattern)

    def json_case(self) -> Case:
        """A well-formed request whose body, Content-Type, method or path is mutated."""
        rng, route, kind = self.rng, self.rng.choice(self.routes), self.rng.choice(JSON_KINDS)
        seed = rng.choice(self.seeds.get(route) or [None])
        obj, method, target, ctype = json.loads(seed) if seed else {}, route.method, self.fill(route.pattern), "application/json"
        body = seed if seed or route.method not in ("GET", "HEAD") else None
        text, paths = json.dumps(obj).encode(), list(slots(obj))
        if kind in VALUES:
            raw = rng.choice(VALUES[kind])
            if paths:
                mutated, where = copy.deepcopy(obj), rng.choice(paths)
                parent = mutated
                for key in where[:-1]:
                    parent = parent[key]
                parent[where[-1]] = "\x00RAW\x00"
                body = json.dumps(mutated).encode().replace(json.dumps("\x00RAW\x00").encode(), raw)
            else:
                body = raw if rng.random() < 0.5 else b'{"fuzz":' + raw + b"}"
        elif kind == "drop_key":
            dicts = [p for p in paths if isinstance(self._at(obj, p[:-1]), dict)]
            mutated = copy.deepcopy(obj)
            if dicts:
                where = rng.choice(dicts)
                del self._at(mutated, where[:-1])[where[-1]]
            body = json.dumps(mutated).encode()
        elif kind == "add_key":
            mutated = copy.deepcopy(obj)
            targets = [mutated] + [v for v in (self._at(mutated, p) for p in slots(mutated)) if isinstance(v, dict)]
            rng.choice(targets)[rng.choice(["fuzz", "", "Request_ID", "a" * 300, "request_id "])] = rng.choice([1, "x", None])
            body = json.dumps(mutated).encode()
        elif kind == "truncated":
            body = text[: rng.randrange(0, max(1, len(text)))]
        elif kind == "trailing_comma":
            body = text.replace(b"]", b",]", 1) if b"]" in text and rng.random() < 0.5 else text[:-1] + b",}"
        elif kind == "duplicate_key":
            key = rng.choice(list(obj)) if obj else "fuzz"
            other = json.dumps(rng.choice([obj.get(key), 1, "dup", None, [], {}])).encode()
            body = b'{"' + key.encode() + b'":' + other + (b"," + text[1:] if len(text) > 2 else b"}")
        elif kind == "empty_body":
            body = b""
        elif kind == "content_type":
            body, ctype = text, rng.choice(CONTENT_TYPES)
        elif kind == "not_object":
            body = rng.choice([b"[]", b"[" + text + b"]", b'"str"', b"1", b"null", b"true", b"   ", b"\x00"])
        elif kind == "trailing_garbage":
            body = text + rng.choice([b" xyz", text, b"\x00", b"}", b"\n\n\n"])
        elif kind == "bom":
            body = rng.choice([b"\xef\xbb\xbf", b"\xff\xfe", b" \n\t"]) + text
        elif kind == "comment":
            body = text.replace(b"{", b"{/* c */", 1) if text != b"{}" else b"// c\n{}"
        elif kind == "bitflip":
            data = bytearray(text)
            for _ in range(rng.randint(1, 4)):
                data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
            body = bytes(data)
        elif kind == "wrong_method":
            method = rng.choice(["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"])
        elif kind == "path_garbage":
            target = self.fill(route.pattern, garbage=True) if "{" in route.pattern else \
                route.pattern + rng.choice(["/", "/x", "//", "%20", "/..", ".json"])
        elif kind == "query":
            target += rng.choice(QUERIES)
        return Case(str(route), "json:" + kind, request(method, target, body, ctype), [method])

    @staticmethod
    def _at(obj, path):
        for key in path:
            obj = obj[key]
        return obj

    def raw_case(self) -> Case:
        """Broken or unusual HTTP framing; see RAW_KINDS."""
        rng, kind = self.rng, self.rng.choice(RAW_KINDS)
        route = rng.choice(self.routes)
        method, target = route.method, self.fill(route.pattern)
        body = rng.choice(self.seeds.get(route) or [None]) or b"{}"
        head = lambda headers, **kw: request(method, target, None, headers=headers, **kw)
        te = [("Content-Type", "application/json"), ("Transfer-Encoding", "chunked")]
        case = Case(str(route), "raw:" + kind, b"", [method], may_close=True)
        if kind == "chunk_bad_size":
            size = rng.choice(["zz", "-1", "0x10", "f" * 20, " 5", "1;", "+5", "", "5\x00"])
            case.data = head(te) + f"{size}\r\n".encode("latin-1") + body + b"\r\n0\r\n\r\n"
        elif kind == "chunk_missing_crlf":
            case.data, case.half_close = head(te) + b"%x\r\n" % len(body) + body + rng.choice([b"0\r\n\r\n", b"\r\n0\r\n"]), True
        elif kind == "chunk_size_mismatch":
            case.data, case.half_close = head(te) + b"%x\r\n" % (len(body) + rng.choice([-1, 1, 100])) + body + b"\r\n0\r\n\r\n", True
        elif kind == "chunk_unterminated":
            case.data, case.half_close = head(te) + b"%x\r\n" % len(body) + body + b"\r\n", True
        elif kind in ("chunked_valid", "chunked_over_limit"):
            data, chunks = body if kind == "chunked_valid" else b" " * (BODY_LIMIT + rng.randint(1, 40000)), b""
            while data:
                n = rng.randint(1, max(1, len(data) // 2))
                chunks += b"%x%s\r\n" % (n, rng.choice([b"", b";ext=1"])) + data[:n] + b"\r\n"
                data = data[n:]
            case.data = head(te) + chunks + b"0\r\n" + rng.choice([b"", b"X-Trailer: 1\r\n"]) + b"\r\n"
            case.may_close = kind == "chunked_over_limit"
        elif kind == "te_and_cl":
            case.data = head(te + [("Content-Length", str(len(body) + 5))]) + b"%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n"
        elif kind == "te_unknown":
            value = rng.choice(["gzip", "gzip, chunked", "chunked, chunked", "xchunked", "identity", "chunked, gzip"])
            case.data = head([("Content-Type", "application/json"), ("Transfer-Encoding", value)]) + body
            case.half_close = True
        elif kind == "cl_conflict":
            values = rng.choice([[str(len(body)), str(len(body) + 1)], [f"{len(body)}, {len(body) + 1}"],
                                 [str(len(body)), str(len(body))]])
            case.data = head([("Content-Type", "application/json")] + [("Content-Length", v) for v in values]) + body
            case.half_close = True
        elif kind == "cl_invalid":
            value = rng.choice(["abc", "-1", "1e3", "0x10", "9" * 25, "+5", "", "5.0", " 2 "])
            case.data, case.half_close = head([("Content-Type", "application/json"), ("Content-Length", value)]) + body, True
        elif kind == "cl_too_long":
            case.data, case.half_close = request(method, target, body, length=False,
                                                 headers=[("Content-Length", str(len(body) + 50))]), True
        elif kind == "cl_too_short":
            case.data = request(method, target, body, length=False, headers=[("Content-Length", str(len(body) // 2))])
        elif kind == "oversized_header":
            case.data = request(method, target, body, headers=[("X-Fuzz", "v" * rng.choice([8192, 65536, 100000]))])
        elif kind == "long_target":
            case.data = request(method, target + "/" + "a" * rng.choice([8192, 65536, 100000]), body)
        elif kind == "many_headers":
            case.data = request(method, target, body, headers=[(f"X-Fuzz-{i}", "v") for i in range(rng.choice([100, 1000, 5000]))])
        elif kind == "bad_header":
            bad = rng.choice([b"X-No-Colon", b"Host : x", b"X-Nul: a\x00b", b"X-Fold: a\r\n folded", b": empty name",
                              b"X-\xff: v", b"X-Bare-LF: a\nX-Other: b", b"X-CR: a\rb"])
            case.data = request(method, target, body).replace(b"Host: localhost", b"Host: localhost\r\n" + bad, 1)
        elif kind == "garbage_line":
            case.route = "-"
            case.data = rng.choice([bytes(rng.randrange(256) for _ in range(rng.randint(1, 200))) + b"\r\n\r\n",
                                    b"GET\r\n\r\n", b"GET / HTTP/1.1 extra\r\n\r\n", b"GET /v1/health HTTP/9.9\r\n\r\n",
                                    b"get /v1/health HTTP/1.1\r\nHost: x\r\n\r\n", b"GET v1/health HTTP/1.1\r\n\r\n",
                                    b"GET /v1/health HTTP/1\r\n\r\n", b"\r\n\r\nGET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n",
                                    b"GET http://localhost/v1/health HTTP/1.1\r\nHost: x\r\n\r\n", b"OPTIONS * HTTP/1.1\r\n\r\n",
                                    b"GET /v1/he\x00alth HTTP/1.1\r\n\r\n", b"GET\t/v1/health\tHTTP/1.1\r\n\r\n"])
        elif kind == "unknown_method":
            method = rng.choice(["BREW", "PROPFIND", "OPTIONS", "TRACE", "PATCH", "DELETE", "X" * 300, "G@T", "CONNECT"])
            case.data, case.methods = request(method, target, body), [method]
            case.may_close = method in ("G@T", "CONNECT") or len(method) > 100
        elif kind == "http09":
            case.data, case.half_close = f"GET {target}\r\n".encode(), True
        elif kind == "http10":
            headers = rng.choice([[], [("Connection", "keep-alive")], [("Connection", "close")]])
            case.data = request(method, target, body if method != "GET" else None, headers=headers,
                                version="HTTP/1.0", host=rng.random() < 0.5)
            case.may_close = False
        elif kind == "missing_host":
            case.data = request(method, target, body if method != "GET" else None, host=False)
        elif kind in ("pipelined", "pipelined_bad"):
            case.route, case.data, case.methods, case.may_close = "-", b"", [], kind == "pipelined_bad"
            for i in range(rng.randint(2, 5)):
                r = rng.choice([r for r in self.routes if r.pattern != "/v1/events"])
                m = "HEAD" if i == 0 and rng.random() < 0.2 else r.method  # a HEAD answer must carry no body
                if kind == "pipelined_bad" and i == 1:  # a bad one second: its 400 is read, nothing after it
                    case.data += rng.choice([b"GARBAGE\r\n\r\n", b"POST /v1/signals HTTP/1.1\r\nContent-Length: zz\r\n\r\n"])
                    case.methods.append("GET")
                    break
                seeds = self.seeds.get(r) or [None]
                case.data += request(m, self.fill(r.pattern), rng.choice(seeds) if m in ("POST", "PUT") else None)
                case.methods.append(m)
        elif kind == "body_over_limit":
            case.data = request(method, target, b" " * (BODY_LIMIT + rng.randint(1, 40000)) + body)
            case.may_close = False
        elif kind == "head":
            case.data, case.methods, case.may_close = request("HEAD", target), ["HEAD"], False
        elif kind == "cut_off":
            whole = request(method, target, body)
            case.data, case.half_close = whole[: rng.randrange(1, len(whole))], True
        elif kind == "expect_continue":
            case.data, case.may_close = request(method, target, body, headers=[("Expect", "100-continue")]), False
        return case

    def judge(self, case: Case, outcome: Outcome):
        """Counts the outcome, and records what is wrong with it as failures."""
        problems = []
        for (status, headers, body), method in zip(outcome.answers, case.methods):
            self.statuses[str(status)] += 1
            if status >= 500:
                problems.append((str(status), f"{status} answer: {snip(body)}"))
            # HEAD answers carry no body; nor do answers to CONNECT (NIO frames none, RFC 9112
            # §6.3), which docs/api.md documents: a bare 405, then the close.
            elif status >= 400 and method not in ("HEAD", "CONNECT"):
                why = error_body_problem(status, headers, body)
                if why:
                    problems.append((str(status), f"{why}: {snip(body)}"))
        if outcome.error:
            label = outcome.error.split(":")[0]
            self.statuses[label] += 1
            if label == "closed" and case.may_close:
                self.closed[case.kind] += 1
            elif label == "closed":
                problems.append(("closed", f"closed without answer after {len(outcome.answers)} of "
                                           f"{len(case.methods)} answers, for a request that can carry one"))
            elif label == "timeout":
                detail = outcome.error.partition(": ")[2]
                problems.append(("timeout", f"no answer within {self.args.case_timeout:g} s" + (f" ({detail})" if detail else "")))
            else:
                problems.append((label, outcome.error))
        for label, why in problems:
            self.fail(case, label, why)

    def fail(self, case: Case, label: str, why: str):
        entry = self.failures.setdefault((case.route, case.kind, label), {"count": 0, "why": why, "sent": case.data})
        entry["count"] += 1

    def run(self):
        """Fuzzes until the time is up (keeping one case timeout in hand), or the daemon is gone."""
        end, began, count = self.started + self.args.seconds - self.args.case_timeout, time.monotonic(), 0
        try:
            while time.monotonic() < end:
                self._one(count)
                if self.gone:
                    return
                count += 1
        finally:
            self.fuzzed = time.monotonic() - began

    def _one(self, count: int):
        """Runs case number `count`, and notes whether the daemon or its socket is gone."""
        if count % 50 == 0:
            self.load_ads()  # fresh ads: the lifecycle routes use them up
        case = self.raw_case() if self.rng.random() < self.args.raw_share else self.json_case()
        self.per_route[case.route] += 1
        self.per_kind[case.kind] += 1
        outcome = exchange(self.args.socket, case, self.args.case_timeout)
        self.harvest(outcome)
        self.judge(case, outcome)
        if self.daemon and self.daemon.proc.poll() is not None:
            self.gone = True
            self.fail(case, "daemon died", f"exit status {self.daemon.proc.returncode}; log:\n"
                      + self.daemon.log_tail())
        elif not accepts(self.args.socket):
            self.gone = True
            self.fail(case, "socket gone", "the socket no longer accepts connections")

    def report(self, stop_problem: str | None) -> int:
        elapsed = time.monotonic() - self.started
        total = sum(self.per_kind.values())
        stopped = f", daemon stopped in {self.stop_seconds:.1f} s" if self.daemon else ""
        print(f"\n== secure-signalsd fuzz: seed {self.args.seed}, {total} cases; {elapsed:.1f} s in all, "
              f"{self.fuzzed:.1f} s fuzzing{stopped}")
        for title, counter in (("cases per route", self.per_route), ("cases per mutation kind", self.per_kind),
                               ("answers per status", self.statuses), ("closed without answer (allowed)", self.closed)):
            print(f"{title}: {sum(counter.values())}")
            for name, n in sorted(counter.items(), key=lambda item: (-item[1], item[0])):
                print(f"  {n:7d}  {name}")
        if stop_problem:
            self.failures[("-", "shutdown", "SIGTERM")] = {"count": 1, "why": stop_problem, "sent": b""}
        print(f"distinct failures: {len(self.failures)} ({sum(f['count'] for f in self.failures.values())} in all)")
        overview, routes = Counter(), {}
        for (route, kind, label), f in self.failures.items():
            overview[(kind, label)] += f["count"]
            routes.setdefault((kind, label), set()).add(route)
        print("  by mutation kind and status (count, routes):")
        for (kind, label), n in sorted(overview.items(), key=lambda item: (-item[1], item[0])):
            print(f"  {n:7d} {len(routes[(kind, label)]):3d}  {kind}  {label}")
        for i, ((route, kind, label), f) in enumerate(sorted(self.failures.items()), 1):
            print(f"[{i}] {route}  {kind}  {label}  ({f['count']}x)\n    why:  {f['why']}\n    sent: {snip(f['sent'])}")
        return 1 if self.failures else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--daemon", metavar="PATH", help="secure-signalsd to start on a temporary configuration")
    parser.add_argument("--socket", metavar="PATH", help="fuzz the daemon already listening here (without --daemon)")
    parser.add_argument("--seconds", type=float, default=60, help="time budget, start included (default 60)")
    parser.add_argument("--seed", type=int, default=1, help="random seed: same seed, same cases (default 1)")
    parser.add_argument("--case-timeout", type=float, default=5, help="seconds a case may take (default 5)")
    parser.add_argument("--raw-share", type=float, default=0.4, help="share of raw HTTP cases (default 0.4)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (config, daemon log)")
    args = parser.parse_args()
    if bool(args.daemon) == bool(args.socket):
        parser.error("give --daemon PATH or --socket PATH")
    if args.daemon and not os.access(args.daemon, os.X_OK):
        parser.error(f"--daemon {args.daemon}: not an executable file")
    started = time.monotonic()
    doc = (REPO / "docs/api.md").read_text()
    routes = read_routes(doc)
    golden, candidates = read_seeds(doc, routes)
    daemon = Daemon(args.daemon) if args.daemon else None
    stop_problem, fuzzer = None, None
    try:
        if daemon:
            args.socket = daemon.socket
            daemon.wait_for_socket()
        fuzzer = Fuzzer(args, routes, golden, daemon, started)
        fuzzer.prepare(candidates)
        print(f"fuzz: {len(routes)} routes from docs/api.md, seed bodies for {sum(1 for r in routes if golden.get(r))}; "
              f"adapters {fuzzer.adapters}; socket {args.socket}")
        fuzzer.run()
    except KeyboardInterrupt:
        print("fuzz: interrupted", file=sys.stderr)
    finally:
        if daemon:
            stopping = time.monotonic()
            stop_problem = daemon.stop()
            if fuzzer:
                fuzzer.stop_seconds = time.monotonic() - stopping
            if args.keep:
                print(f"fuzz: kept {daemon.dir}")
            else:
                shutil.rmtree(daemon.dir, ignore_errors=True)
    return fuzzer.report(stop_problem) if fuzzer else 1


if __name__ == "__main__":
    sys.exit(main())
