#!/usr/bin/env python3
"""Checks the inspector's page in headless Chromium (Debian's chromium and chromium-driver,
driven by selenium): the daemon binary runs on its embedded default plus the loopback listener
with `inspect.page` and an ad unit whose auction has two bidders (a local OpenRTB server: one
bids, one does not) before a waterfall of two test-network line items. The page must load with
the unit and the adapters listed and its stream live; a signals request and a load made
through the socket afterwards must appear without a reload; the load's timeline must have one
bar per bidder and source, the winner outlined once; the browser's console must stay free of
errors (a CSP violation is one). A screenshot is kept (--screenshot). Exit 0 only when all hold."""
import argparse
import http.server
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

from daemon_process import UnixConnection, stop

UNIT = "/inspect/page"
TEST_NATIVE = "/21775744923/example/native"
GIF = bytes.fromhex("47494638396101000100800000000000ffffff21f90401000000002c00000000010001000002024401003b")


def call(socket_path, method, path, body=None):
    connection = UnixConnection(socket_path, timeout=30)
    headers = {"Content-Type": "application/json"} if body is not None else {}
    connection.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    answer = connection.getresponse()
    data = answer.read()
    connection.close()
    return answer.status, json.loads(data) if data else None


def bid_response(base, samples):
    """A native bid at 5 USD from seat `page-seat`, its ad the IAB sample's with images served here."""
    with open(os.path.join(samples, "native/native12-response-startio-wrapped-native-key.json")) as sample:
        adm = json.loads(sample.read().replace("https://img.image.com", base))
    adm["native"]["assets"].append({"id": 2, "img": {"type": 3, "url": base + "/img/main.jpg", "w": 320, "h": 250}})
    adm["native"]["link"] = {"url": "https://click.example/landing"}
    return {
        "id": "page", "cur": "USD",
        "seatbid": [{"seat": "page-seat", "bid": [{
            "id": "page-bid", "impid": "1", "price": 5, "mtype": 4, "crid": "page-creative",
            "adomain": ["advertiser.example"], "adm": json.dumps(adm),
        }]}],
    }


def start_bidder(samples):
    """A local OpenRTB server: /bid/best bids, /bid/silent answers 204, anything else is a GIF."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            if self.path == "/bid/best":
                body = json.dumps(bid_response(f"http://127.0.0.1:{server.server_port}", samples)).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            else:
                self.send_response(204)
                self.end_headers()

        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "image/gif")
            self.send_header("Content-Length", str(len(GIF)))
            self.end_headers()
            self.wfile.write(GIF)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait(what, predicate, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"{what}: not within {seconds} s")


def configuration(daemon, environment, port, bidder_port):
    printed = subprocess.run([daemon, "--print-config"], env=environment, capture_output=True, check=True)
    config = json.loads(printed.stdout)
    config["metrics"] = {"listen": f"127.0.0.1:{port}"}
    config["inspect"] = {"page": True}
    endpoint = f"http://127.0.0.1:{bidder_port}/bid/"
    config["ad_units"][UNIT] = {
        "format": "native", "floor_cpm": 1, "currency": "USD", "auction": {"timeout_ms": 3000},
        "bidders": [{"network": "openrtb", "parameter": name, "options": {"endpoint": endpoint + name}}
                    for name in ["best", "silent"]],
        "waterfall": [
            {"network": "test", "parameter": TEST_NATIVE, "cpm": 9, "timeout_ms": 3000,
             "options": {"behavior": "no_fill", "delay_ms": 40}},
            {"network": "test", "parameter": TEST_NATIVE, "cpm": 0.5, "timeout_ms": 3000},
        ],
    }
    return config


def check_page(driver, url, socket_path):
    from selenium.webdriver.common.by import By

    driver.get(url)
    wait("the stream goes live", lambda: driver.find_element(By.ID, "live").get_attribute("class") == "on")
    units = wait("the units are listed", lambda: driver.find_element(By.CSS_SELECTOR, "#units tbody").text)
    assert UNIT in units, f"the unit is not listed: {units!r}"
    adapters = driver.find_element(By.CSS_SELECTOR, "#adapters tbody").text
    assert "device-context" in adapters, f"the adapters are not listed: {adapters!r}"

    status, collected = call(socket_path, "POST", "/v1/signals", {"request_id": "page-check"})
    assert status == 200, f"signals answered {status}: {collected}"
    status, ad = call(socket_path, "POST", "/v1/ads", {"ad_unit": UNIT, "format": "native"})
    assert status == 200, f"the load answered {status}: {ad}"
    status, listed = call(socket_path, "GET", "/v1/inspect/loads?limit=1")
    trace = listed["loads"][0]
    assert trace["ad_unit"] == UNIT and trace["outcome"] == "filled", trace
    attempts = len(trace["bidders"]) + len(trace["sources"])
    assert attempts >= 4, f"the load tried too little to draw: {trace}"

    row = wait("the load appears live",
               lambda: driver.find_elements(By.CSS_SELECTOR, f'#loads tbody tr[data-id="{trace["id"]}"]'))
    wait("the signals request appears live",
         lambda: "page-check" in driver.find_element(By.CSS_SELECTOR, "#signals tbody").text)
    row[0].click()
    wait("the load is drawn", lambda: driver.find_elements(By.CSS_SELECTOR, f'#timeline svg[data-load="{trace["id"]}"]'))
    bars = driver.find_elements(By.CSS_SELECTOR, "#timeline svg rect.attempt")
    assert len(bars) == attempts, f"{len(bars)} bars for {attempts} attempts"
    winners = driver.find_elements(By.CSS_SELECTOR, "#timeline svg rect.attempt.winner")
    assert len(winners) == 2, f"the winning bidder and its source are outlined, not {len(winners)} bars"
    bids = driver.find_element(By.CSS_SELECTOR, "#bids tbody").text
    for text in ["page-seat", "page-bid", "page-creative", "advertiser.example"]:
        assert text in bids, f"{text} is not in the bids table: {bids!r}"
    summary = driver.find_element(By.ID, "load-summary").text
    assert summary.startswith("filled by openrtb"), summary
    return trace


def screenshot(driver, path):
    """The page as it is now, kept at `path` (the CI artifact)."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    driver.save_screenshot(path)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--daemon", required=True, help="the secure-signalsd binary")
    parser.add_argument("--samples", default="../shared/samples", help="the IAB's OpenRTB and Native samples")
    parser.add_argument("--screenshot", default="build/artifacts/inspector-page.png")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    args = parser.parse_args()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    bidder = start_bidder(os.path.abspath(args.samples))
    with tempfile.TemporaryDirectory() as directory:
        socket_path = os.path.join(directory, "daemon.sock")
        environment = dict(os.environ, XDG_STATE_HOME=os.path.join(directory, "state"), XDG_RUNTIME_DIR=directory)
        port = free_port()
        config_path = os.path.join(directory, "daemon.json")
        with open(config_path, "w") as file:
            json.dump(configuration(args.daemon, environment, port, bidder.server_port), file)
        log_path = os.path.join(directory, "daemon.log")
        log = open(log_path, "w")
        daemon = subprocess.Popen([args.daemon, "--config", config_path, "--socket", socket_path],
                                  env=environment, stdout=log, stderr=log)
        options = webdriver.ChromeOptions()
        options.binary_location = args.chromium
        for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1400,1100"]:
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = None
        status = 1
        try:
            wait("the daemon answers", lambda: os.path.exists(socket_path) and call(socket_path, "GET", "/v1/health")[0] == 200)
            driver = webdriver.Chrome(service=Service(args.chromedriver), options=options)
            trace = check_page(driver, f"http://localhost:{port}/inspect", socket_path)
            errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
            assert not errors, f"the console has errors: {errors}"
            screenshot(driver, args.screenshot)
            print(f"check-inspector-page: load {trace['id']} drawn with {len(trace['bidders'])} bidders and "
                  f"{len(trace['sources'])} sources; screenshot {args.screenshot}")
            status = 0
        except Exception as error:
            print(f"check-inspector-page: {error}", file=sys.stderr)
            if driver is not None:
                screenshot(driver, args.screenshot)
        finally:
            if driver is not None:
                driver.quit()
            stop(daemon, log, log_path, failed=status != 0)
            bidder.shutdown()
    sys.exit(status)


if __name__ == "__main__":
    main()
