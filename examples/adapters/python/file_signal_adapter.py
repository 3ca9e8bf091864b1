#!/usr/bin/env python3
"""file_signal_adapter.py -- an example secure-signals "exec" adapter.

Copy this file to write your own adapter program. The daemon starts the program once and
talks to it over its stdin and stdout, one compact JSON object per line ("\\n"-terminated
UTF-8). The full protocol is in docs/exec-adapters.md; in short:

    daemon -> {"id":0,"method":"initialize","params":{"adapter":"NAME","options":{...}}}
    program <- {"id":0,"result":{"adapter_version":"1.0.0","sdk_version":"3.11.7"}}
    daemon -> {"id":1,"method":"collect","params":{"request_id":"ad-42","privacy":null}}
    program <- {"id":1,"result":{"signal":"<standard base64 of the raw signal bytes>"}}
           or {"id":1,"error":{"code":"consent_missing","message":"..."}}

What this adapter does: every collect reads the file named by option `path` afresh and
answers its bytes as the signal (the daemon encrypts it for the configured recipients).
Some other program keeps that file up to date.

Options (the "options" object of the adapter's configuration entry):
    path              (string, required) the file to read on every collect
    requires_consent  (bool, default false) answer consent_missing unless the request's
                      privacy state is set and ad tracking is not limited

Rules every adapter program must follow:
  * Write exactly one line per reply and flush stdout after it (the daemon waits for it).
  * Never write anything else to stdout: diagnostics go to stderr, which the daemon copies
    (rate-limited) into its log. Never write secrets or signal contents to stderr.
  * Echo the request's "id" in the reply; replies may be sent in any order.
  * Exit when stdin reaches end of file (the daemon has gone or is stopping you).
  * Keep reply lines under 64 KiB: the daemon drops longer lines.

Standard library only; Python 3.6 or later.
"""

import base64
import json
import os
import sys

ADAPTER_VERSION = "1.0.0"
# The "SDK" of this adapter is the Python runtime itself. Versions must be
# MAJOR.MINOR.PATCH; platform.python_version() can carry suffixes ("3.13.0rc1", "3.12.0+"),
# so build the string from sys.version_info, which has the same three numbers.
SDK_VERSION = "%d.%d.%d" % sys.version_info[:3]

# The daemon drops lines longer than 64 KiB. A reply that would be longer is answered as an
# error instead, so the daemon gets an answer rather than waiting for its timeout.
MAX_LINE_BYTES = 64 * 1024

# The error codes the daemon understands.
SDK_UNAVAILABLE = "sdk_unavailable"      # the adapter cannot work at all (yet)
CONSENT_MISSING = "consent_missing"      # the privacy state does not allow this signal
PERMISSION_DENIED = "permission_denied"  # the OS refused access to what the signal needs
COLLECTION_FAILED = "collection_failed"  # anything else went wrong for this request


def send(message):
    """Writes one reply as one compact JSON line and flushes it at once."""
    # ensure_ascii (the default) keeps the line pure ASCII, which is valid UTF-8.
    line = json.dumps(message, separators=(",", ":"))
    if len(line) + 1 > MAX_LINE_BYTES:
        message = error(message.get("id"), COLLECTION_FAILED,
                        "the reply would be %d bytes; lines are limited to %d"
                        % (len(line) + 1, MAX_LINE_BYTES))
        line = json.dumps(message, separators=(",", ":"))
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def log(text):
    """One human-readable line for the daemon's log."""
    sys.stderr.write("file_signal_adapter: %s\n" % text)
    sys.stderr.flush()


def result(request_id, value):
    return {"id": request_id, "result": value}


def error(request_id, code, message):
    return {"id": request_id, "error": {"code": code, "message": message}}


class FileSignalAdapter:
    def __init__(self):
        self.path = None              # set by a successful initialize
        self.requires_consent = False
        self.init_error = "not initialized"

    def initialize(self, request_id, params):
        """Validates the options; the daemon calls this exactly once, first."""
        options = params.get("options") if isinstance(params, dict) else None
        if options is None:
            options = {}
        if not isinstance(options, dict):
            return self.fail_init(request_id, "options must be a JSON object")
        path = options.get("path")
        if path is None:
            return self.fail_init(request_id, "option 'path' is required")
        if not isinstance(path, str) or not path:
            return self.fail_init(request_id, "option 'path' must be a non-empty string")
        requires_consent = options.get("requires_consent", False)
        if not isinstance(requires_consent, bool):
            return self.fail_init(request_id, "option 'requires_consent' must be true or false")
        # A real adapter would load and start its SDK here. This one only remembers the path:
        # the file may legitimately not exist yet (each collect reports that on its own).
        self.path = path
        self.requires_consent = requires_consent
        self.init_error = None
        return result(request_id, {"adapter_version": ADAPTER_VERSION,
                                   "sdk_version": SDK_VERSION})

    def fail_init(self, request_id, message):
        self.path = None
        self.init_error = message
        log("initialize failed: " + message)
        return error(request_id, SDK_UNAVAILABLE, message)

    def collect(self, request_id, params):
        """Answers one ad request's signal."""
        if self.init_error is not None:
            # The daemon does not ask an adapter whose initialize failed; be safe anyway.
            return error(request_id, SDK_UNAVAILABLE, self.init_error)
        privacy = params.get("privacy") if isinstance(params, dict) else None
        if self.requires_consent and not consent_given(privacy):
            return error(request_id, CONSENT_MISSING,
                         "no privacy state is set" if privacy is None
                         else "ad tracking is limited")
        try:
            # Read the whole file afresh: its writer may have replaced it since last time.
            with open(self.path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            return error(request_id, SDK_UNAVAILABLE, "%s does not exist" % self.path)
        except PermissionError:
            return error(request_id, PERMISSION_DENIED, "%s cannot be read" % self.path)
        except OSError as e:  # a directory, an I/O error, ...
            return error(request_id, COLLECTION_FAILED,
                         "%s: %s" % (self.path, e.strerror or e))
        # The daemon wants the raw bytes in standard base64 (with padding); it encrypts them.
        return result(request_id, {"signal": base64.b64encode(data).decode("ascii")})


def consent_given(privacy):
    """A null privacy state counts as no consent; so does limited ad tracking.

    A real adapter would also look at what it needs from tcf_consent, gpp/gpp_sid or
    us_privacy (each may be absent or null)."""
    return isinstance(privacy, dict) and privacy.get("limit_ad_tracking") is False


def handle(adapter, line):
    """Parses one request line and returns the reply, or None to send nothing."""
    try:
        message = json.loads(line)
    except ValueError:  # not JSON, or not UTF-8
        log("ignoring a line that is not JSON (%d bytes)" % len(line))
        return None
    if not isinstance(message, dict) or not isinstance(message.get("id"), int) \
            or isinstance(message.get("id"), bool):
        log("ignoring a message without a numeric id")
        return None
    request_id = message["id"]
    method = message.get("method")
    params = message.get("params")
    if method == "collect":
        return adapter.collect(request_id, params)
    if method == "initialize":
        return adapter.initialize(request_id, params)
    return error(request_id, COLLECTION_FAILED, "unknown method %s" % json.dumps(method))


def main():
    adapter = FileSignalAdapter()
    # One request at a time is enough here: reading a small file takes microseconds. An
    # adapter whose collects are slow should answer from worker threads instead (replies
    # may go out in any order; guard stdout with a lock), so one slow request does not hold
    # up the next ones.
    # Reading sys.stdin.buffer gives bytes; json.loads accepts UTF-8 bytes directly.
    try:
        for line in sys.stdin.buffer:
            if not line.strip():
                continue
            reply = handle(adapter, line)
            if reply is not None:
                send(reply)
    except BrokenPipeError:
        # The daemon closed our stdout: it is going away, so do we. Point stdout at
        # /dev/null so that Python's final flush does not complain a second time.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except KeyboardInterrupt:
        pass
    # End of stdin: the daemon is stopping us (or has died). Exit quietly.
    return 0


if __name__ == "__main__":
    sys.exit(main())
