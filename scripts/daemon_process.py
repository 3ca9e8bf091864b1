"""What the check scripts that run the daemon binary share: HTTP over its Unix socket, and its
stop (TERM, then KILL after 20 s), with the tail of its log printed when the check failed."""
import http.client
import socket
import subprocess
import sys


class UnixConnection(http.client.HTTPConnection):
    """HTTP over the daemon's Unix socket."""

    def __init__(self, path, timeout=10):
        super().__init__("localhost", timeout=timeout)
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.path)


def stop(daemon, log, log_path, failed):
    """Stops `daemon` and closes `log`; prints the log's tail when `failed`."""
    daemon.terminate()
    try:
        daemon.wait(timeout=20)
    except subprocess.TimeoutExpired:
        daemon.kill()
        daemon.wait()
    log.close()
    if failed:
        print(open(log_path).read()[-4000:], file=sys.stderr)
