#!/usr/bin/env python3
"""Checks docs/openapi.yaml against the real daemon: openapi-spec-validator accepts the file, then
schemathesis runs every operation against a daemon on its embedded default, reached through a
loopback TCP bridge to its Unix socket, with its response-schema, status-code and server-error
checks. Exit 0 only when both are green.

The event stream and the inspector's stream are left out of schemathesis: they never end, so no
response to check ever arrives (the SSE tests in `swift test` cover them)."""
import argparse
import asyncio
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

from daemon_process import stop


async def pipe(reader, writer):
    """Copies one direction until its end, then half-closes the other side (a client that
    shuts down its sending side still gets its answer)."""
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
    except (ConnectionError, asyncio.CancelledError):
        pass


def start_bridge(socket_path):
    """A loopback TCP listener whose every connection is piped to the daemon's socket, in a
    thread of its own; returns its port."""
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    port = []

    async def connection(tcp_reader, tcp_writer):
        try:
            unix_reader, unix_writer = await asyncio.open_unix_connection(socket_path)
        except OSError:
            tcp_writer.close()
            return
        await asyncio.gather(pipe(tcp_reader, unix_writer), pipe(unix_reader, tcp_writer))
        unix_writer.close()
        tcp_writer.close()

    async def serve():
        server = await asyncio.start_server(connection, "127.0.0.1", 0)
        port.append(server.sockets[0].getsockname()[1])
        ready.set()
        await server.serve_forever()

    threading.Thread(target=lambda: loop.run_until_complete(serve()), daemon=True).start()
    ready.wait(10)
    return port[0]


def wait_for(socket_path, seconds=15):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                probe.settimeout(1)
                probe.connect(socket_path)
                probe.sendall(b"GET /v1/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                if probe.recv(64).startswith(b"HTTP/1.1 200"):
                    return
        except OSError:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"the daemon did not answer on {socket_path} within {seconds} s")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--daemon", required=True, help="the secure-signalsd binary")
    parser.add_argument("--spec", default="docs/openapi.yaml")
    parser.add_argument("--venv", default=".build/ci-venv", help="where openapi-spec-validator and schemathesis are")
    parser.add_argument("--max-examples", type=int, default=40, help="per operation")
    parser.add_argument("--max-time", type=int, default=240, help="seconds for the whole schemathesis run")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    tools = os.path.join(args.venv, "bin")
    subprocess.run([os.path.join(tools, "openapi-spec-validator"), args.spec], check=True)
    with tempfile.TemporaryDirectory() as directory:
        sock = os.path.join(directory, "daemon.sock")
        environment = dict(os.environ, XDG_STATE_HOME=os.path.join(directory, "state"),
                           XDG_RUNTIME_DIR=directory)
        log_path = os.path.join(directory, "daemon.log")
        log = open(log_path, "w")
        daemon = subprocess.Popen([args.daemon, "--socket", sock], env=environment, stdout=log, stderr=log)
        status = 1
        try:
            wait_for(sock)
            port = start_bridge(sock)
            command = [
                os.path.join(tools, "schemathesis"), "run", args.spec, "--url", f"http://127.0.0.1:{port}",
                "--checks", ",".join([
                    "response_schema_conformance", "status_code_conformance", "not_a_server_error",
                    "negative_data_rejection", "unsupported_method",
                ]),
                "--exclude-operation-id", "streamEvents", "--exclude-operation-id", "streamInspection",
                "--max-examples", str(args.max_examples), "--max-time", str(args.max_time),
                "--workers", "1", "--request-timeout", "10", "--no-color",
            ]
            if args.seed is not None:
                command += ["--seed", str(args.seed)]
            status = subprocess.run(command).returncode
            if daemon.poll() is not None:
                print(f"check-openapi: the daemon exited with {daemon.returncode} during the run", file=sys.stderr)
                status = 1
        except Exception as error:
            print(f"check-openapi: {error}", file=sys.stderr)
            status = 1
        finally:
            stop(daemon, log, log_path, failed=status != 0)
    sys.exit(status)


if __name__ == "__main__":
    main()
