#!/usr/bin/env bash
# Checks the systemd units in systemd/ (run from anywhere; CI runs it from the
# repository root):
#   1. systemd-analyze verify secure-signals.service secure-signals.socket
#      (any message about our units fails too: verify exits 0 on unknown keys
#      and unparsable values, it only warns)
#   2. systemd-analyze security --offline=true: overall exposure <= 2.0
#   3. the sysusers.d and tmpfiles.d snippets apply cleanly to a scratch root
#      (the tmpfiles one only as root, since it chowns)
#
# verify refuses a unit whose ExecStart binary is missing or not executable,
# so when /usr/sbin/secure-signalsd does not exist this script creates a
# dummy one (`#!/bin/sh` + `exit 0`, needs root) and removes it on exit. An
# existing binary is never touched.
#
# Exits 0 when everything passes, or when systemd-analyze is not installed
# (the check is skipped). Otherwise exits 1; the last line says why.

set -euo pipefail

MAX_EXPOSURE_TENTHS=20 # 2.0 on systemd-analyze's 0.0-10.0 scale
BINARY=/usr/sbin/secure-signalsd

script=${BASH_SOURCE[0]}
if [[ "$script" == */* ]]; then cd "${script%/*}/.."; else cd ..; fi
SERVICE=systemd/secure-signals.service
SOCKET=systemd/secure-signals.socket

export SYSTEMD_COLORS=0 SYSTEMD_PAGER=cat LC_ALL=C.UTF-8

fail() {
    echo "check.sh: FAIL: $*" >&2
    exit 1
}

if ! command -v systemd-analyze >/dev/null 2>&1; then
    echo "check.sh: systemd-analyze not installed; skipping the systemd unit checks"
    exit 0
fi

created_binary=""
scratch=""
cleanup() {
    if [[ -n "$created_binary" ]]; then rm -f -- "$created_binary"; fi
    if [[ -n "$scratch" ]]; then rm -rf -- "$scratch"; fi
}
trap cleanup EXIT

version=$(systemd-analyze --version | awk 'NR == 1 { print $2 }')
help=$(systemd-analyze --help)
for option in --offline --threshold; do
    grep -q -- "$option=" <<<"$help" ||
        fail "systemd-analyze $version has no $option (needs systemd >= 250)"
done

# --- 1. verify ---------------------------------------------------------------
if [[ ! -e "$BINARY" && ! -L "$BINARY" ]]; then
    # noclobber: never overwrite a binary that appeared in the meantime.
    if ! (set -o noclobber; printf '#!/bin/sh\nexit 0\n' >"$BINARY") 2>/dev/null; then
        fail "cannot create dummy $BINARY for systemd-analyze verify (run as root, e.g. sudo systemd/check.sh)"
    fi
    created_binary=$BINARY
    chmod 0755 "$BINARY"
fi

verify_rc=0
verify_out=$(systemd-analyze verify --man=no "$SERVICE" "$SOCKET" 2>&1) || verify_rc=$?
if [[ -n "$verify_out" ]]; then echo "$verify_out"; fi
if ((verify_rc != 0)); then
    fail "systemd-analyze verify exited $verify_rc"
fi
if grep -q 'secure-signals' <<<"$verify_out"; then
    fail "systemd-analyze verify reported problems in the secure-signals units (see above)"
fi
echo "check.sh: systemd-analyze verify: OK"

# --- 2. security ---------------------------------------------------------------
# --threshold compares the integer exposure in tenths (the "1.2" printed is 12)
# and fails only when it is strictly greater, so 20 means "fail above 2.0".
security_rc=0
security_out=$(systemd-analyze security --no-pager --offline=true \
    --threshold="$MAX_EXPOSURE_TENTHS" "$SERVICE" 2>&1) || security_rc=$?
overall=$(grep -o 'Overall exposure level for [^:]*: [0-9]*\.[0-9]' <<<"$security_out" || true)
score=${overall##* }
if [[ -z "$score" ]]; then
    echo "$security_out"
    fail "systemd-analyze security printed no overall exposure level (exit $security_rc)"
fi
# Also compare the printed score ourselves, in tenths ("1.2" -> 12).
score_tenths=$((10#${score%.*} * 10 + 10#${score#*.}))
if ((security_rc != 0 || score_tenths > MAX_EXPOSURE_TENTHS)); then
    echo "$security_out" | grep -E '^✗|Overall' || true
    fail "exposure level $score is above 2.0 (systemd-analyze security exited $security_rc)"
fi
echo "check.sh: systemd-analyze security: exposure $score (<= 2.0): OK"

# --- 3. sysusers.d / tmpfiles.d --------------------------------------------------
scratch=$(mktemp -d)
mkdir -p "$scratch/etc/sysusers.d" "$scratch/etc/tmpfiles.d"
cp systemd/sysusers.d/secure-signals.conf "$scratch/etc/sysusers.d/"
cp systemd/tmpfiles.d/secure-signals.conf "$scratch/etc/tmpfiles.d/"
if command -v systemd-sysusers >/dev/null 2>&1; then
    sysusers_rc=0
    sysusers_out=$(systemd-sysusers --root="$scratch" 2>&1) || sysusers_rc=$?
    if ((sysusers_rc != 0)) || ! grep -q '^secure-signals:' "$scratch/etc/passwd"; then
        echo "$sysusers_out"
        fail "systemd-sysusers could not apply systemd/sysusers.d/secure-signals.conf"
    fi
    echo "check.sh: systemd-sysusers (scratch root): OK"
    if command -v systemd-tmpfiles >/dev/null 2>&1 && ((EUID == 0)); then
        tmpfiles_rc=0
        tmpfiles_out=$(systemd-tmpfiles --root="$scratch" --create 2>&1) || tmpfiles_rc=$?
        if ((tmpfiles_rc != 0)); then
            echo "$tmpfiles_out"
            fail "systemd-tmpfiles could not apply systemd/tmpfiles.d/secure-signals.conf"
        fi
        echo "check.sh: systemd-tmpfiles (scratch root): OK"
    else
        echo "check.sh: systemd-tmpfiles check skipped (needs root and systemd-tmpfiles)"
    fi
else
    echo "check.sh: systemd-sysusers not installed; sysusers/tmpfiles checks skipped"
fi

echo "check.sh: all systemd unit checks passed"
