#!/usr/bin/env python3
"""Starts the daemon on its embedded default, scrapes /metrics over the socket, and parses the
text with the Prometheus client library's own parser: every family must parse and have its help
text, and the process and build families must be there. Exit 1 with the reason otherwise."""
import argparse
import os
import subprocess
import sys
import tempfile
import time

from prometheus_client.parser import text_string_to_metric_families

from daemon_process import UnixConnection


def get(path, route):
    connection = UnixConnection(path)
    connection.request("GET", route)
    answer = connection.getresponse()
    return answer.status, answer.read().decode()


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--daemon", required=True, help="the secure-signalsd binary")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        sock = os.path.join(directory, "daemon.sock")
        environment = dict(os.environ, XDG_STATE_HOME=os.path.join(directory, "state"))
        daemon = subprocess.Popen([args.daemon, "--socket", sock], env=environment,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(300):
                if os.path.exists(sock):
                    try:
                        if get(sock, "/v1/health")[0] == 200:
                            break
                    except OSError:
                        pass
                time.sleep(0.05)
            get(sock, "/v1/adapters")
            status, text = get(sock, "/metrics")
        finally:
            daemon.terminate()
            daemon.wait(timeout=20)
    if status != 200:
        sys.exit(f"check-metrics: /metrics answered {status}")
    families = list(text_string_to_metric_families(text))
    names = {family.name for family in families}
    unexplained = sorted(family.name for family in families if not family.documentation)
    if unexplained:
        sys.exit(f"check-metrics: families without HELP: {', '.join(unexplained)}")
    needed = {"process_resident_memory_bytes", "process_open_fds", "process_start_time_seconds",
              "process_cpu_seconds", "secure_signals_build_info", "secure_signals_adapters",
              "secure_signals_http_requests"}
    missing = sorted(needed - names)
    if missing:
        sys.exit(f"check-metrics: missing families: {', '.join(missing)}")
    print(f"check-metrics: {len(families)} families parsed by prometheus_client, each with its HELP")


if __name__ == "__main__":
    main()
