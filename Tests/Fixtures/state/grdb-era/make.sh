#!/usr/bin/env bash
# Makes Tests/Fixtures/state/grdb-era/state.sqlite with the GRDB-era daemon binary ($1 = its build dir).
set -euo pipefail
bin=$1; repo=$2; out=$3
work=$(mktemp -d); trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
python3 - "$work/port" <<'PY' &
import http.server, sys, socketserver
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self): self.send_response(503); self.end_headers()
    do_POST = do_GET
    def log_message(self, *a): pass
s = socketserver.TCPServer(("127.0.0.1", 0), H)
open(sys.argv[1], "w").write(str(s.server_address[1]))
s.serve_forever()
PY
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(cat "$work/port"); t="http://127.0.0.1:$port"
"$bin/secure-signals" keys ssv-generate --key-id 7 --out "$work/ssv" >/dev/null
native=/21775744923/example/native; rewarded=/6499/example/rewarded
cat > "$work/config.json" <<JSON
{"recipients": {"demo": {"key_configs": ["$repo/keys/demo/demo.keyconfig"]}}, "adapters": [],
 "socket": {"path": "$work/daemon.sock"}, "state_directory": "$work/state",
 "ssv": {"signing_key": "$work/ssv/ssv-7.pem", "key_id": 7},
 "ad_units": {
  "$native": {"format": "native", "frequency_caps": [{"impressions": 100, "per_ms": 86400000}],
    "waterfall": [{"network": "test", "parameter": "$native", "timeout_ms": 2000,
      "options": {"impression_tracker": "$t/imp", "click_tracker": "$t/clk"}}]},
  "$rewarded": {"format": "rewarded", "ssv": {"callback_url": "$t/ssv?app=tv"},
    "waterfall": [{"network": "test", "parameter": "$rewarded", "timeout_ms": 2000}]}}}
JSON
"$bin/secure-signalsd" --config "$work/config.json" > "$work/daemon.log" 2>&1 &
daemon=$!
for _ in $(seq 100); do [ -S "$work/daemon.sock" ] && break; sleep 0.1; done
api() { curl -sS --unix-socket "$work/daemon.sock" -X "$1" "http://localhost$2" -H 'content-type: application/json' ${3:+-d "$3"}; echo; }
id() { python3 -c 'import json,sys; print(json.load(sys.stdin)["ad_id"])'; }
for _ in 1 2 3; do
  ad=$(api POST /v1/ads "{\"ad_unit\": \"$native\", \"format\": \"native\", \"force\": true}" | id)
  api POST "/v1/ads/$ad/impression"; api POST "/v1/ads/$ad/click"
done
for user in player-1 player-2; do
  ad=$(api POST /v1/ads "{\"ad_unit\": \"$rewarded\", \"format\": \"rewarded\", \"force\": true, \"ssv\": {\"user_id\": \"$user\", \"custom_data\": \"a&b=c\"}}" | id)
  api POST "/v1/ads/$ad/show"; api POST "/v1/ads/$ad/progress" '{"event": "complete"}'; api POST "/v1/ads/$ad/dismiss"
done
tx=$(api GET '/v1/rewards?state=all' | python3 -c 'import json,sys; print(json.load(sys.stdin)["rewards"][0]["transaction_id"])')
api POST "/v1/rewards/$tx/claim"
api PUT /v1/device/privacy '{"privacy": {"limit_ad_tracking": false, "gdpr_applies": true, "gpc": true}}'
api PUT /v1/privacy '{"privacy": {"limit_ad_tracking": true, "gpp_sid": [7]}}'
api GET '/v1/rewards?state=all'
kill -TERM $daemon; wait $daemon || true
cp "$work/state/state.sqlite" "$out"
ls -la "$work/state"; cat "$work/daemon.log" | tail -5
