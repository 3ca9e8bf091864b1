#!/usr/bin/env python3
"""echo_request_adapter.py -- an exec adapter program that answers each collect with what it
received, for tests.

It speaks the exec adapter protocol (docs/exec-adapters.md). initialize answers
adapter_version "1.0.0", sdk_version "0.0.1"; each collect is answered with the signal
base64(the request's params, as JSON with sorted keys and no spaces). It exits at the end of
stdin.
"""

import base64
import json
import sys


def send(message):
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    request = json.loads(line)
    if request.get("method") == "initialize":
        send({"id": request["id"], "result": {"adapter_version": "1.0.0", "sdk_version": "0.0.1"}})
    elif request.get("method") == "collect":
        params = json.dumps(request.get("params"), sort_keys=True, separators=(",", ":"))
        send({"id": request["id"], "result": {"signal": base64.b64encode(params.encode()).decode()}})
    else:
        send({"id": request["id"], "error": {"code": "collection_failed", "message": "unknown method"}})
