#!/usr/bin/env bash
# The .deb on a bare Debian system, as root: a minimal root made by debootstrap from Debian's
# packages; the package installed into it with `apt-get install ./...deb` (pulling only
# Debian's dependencies); inside it (chroot, no Swift anywhere) `secure-signalsd --check-config`
# and the daemon started on the installed example, asked from outside the root (curl on its
# socket) for health, signals and a test ad; then the package removed (only the state and the
# configuration stay, as Debian keeps them) and purged (nothing stays).
#   bash packaging/test-deb.sh [DEB]     (default: the newest build/*.deb; `make deb` makes one)
# SUITE (the host's Debian release, else bookworm) and MIRROR (http://deb.debian.org/debian) choose the root; the base system is
# kept in build/debootstrap-SUITE.tgz so that a second run does not download it again.
set -euo pipefail
cd "$(dirname "$0")/.."
here=$PWD
# The host's Debian release by default: Depends: comes from the libraries the package was built against.
host_suite=$( (. /etc/os-release && [[ "${ID:-}" == debian ]] && echo "${VERSION_CODENAME:-}") 2>/dev/null || true)
suite=${SUITE:-${host_suite:-bookworm}}
mirror=${MIRROR:-http://deb.debian.org/debian}
fail() { echo "test-deb.sh: FAIL: $*" >&2; exit 1; }

((EUID == 0)) || fail "run as root: debootstrap and chroot need it"
command -v debootstrap >/dev/null || fail "debootstrap is not installed (apt-get install debootstrap)"
command -v curl >/dev/null || fail "curl is not installed"
deb=${1:-$(ls -t build/secure-signals_*.deb 2>/dev/null | head -1)}
[[ -n "$deb" && -f "$deb" ]] || fail "no package: run make deb first"
deb=$(realpath "$deb")

root=$(mktemp -d /tmp/secure-signals-root.XXXXXX)
chmod 0755 "$root"   # the root directory of the system inside: everyone traverses it
daemon=""
cleanup() {
    if [[ -n "$daemon" ]]; then kill "$daemon" 2>/dev/null || true; wait "$daemon" 2>/dev/null || true; fi
    for mount in proc sys dev/pts dev; do umount -l "$root/$mount" 2>/dev/null || true; done
    # Never delete through a mount that is still there.
    if findmnt -R "$root" >/dev/null 2>&1; then
        echo "test-deb.sh: $root still has mounts; left in place" >&2
    else
        rm -rf --one-file-system "$root"
    fi
}
trap cleanup EXIT
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 "$@"; }
apt_in_root() { in_root env DEBIAN_FRONTEND=noninteractive apt-get "$@"; }

echo "== a minimal $suite root (debootstrap --variant=minbase)"
tarball=$here/build/debootstrap-$suite.tgz
if [[ ! -f "$tarball" ]]; then
    mkdir -p build
    debootstrap --variant=minbase --make-tarball="$tarball" "$suite" "$root/.make" "$mirror" >/dev/null
    rm -rf "$root/.make"
fi
debootstrap --variant=minbase --unpack-tarball="$tarball" "$suite" "$root" "$mirror" >/dev/null
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
cp /etc/resolv.conf "$root/etc/resolv.conf"
in_root sh -c 'command -v swift' && fail "the root has a Swift toolchain"

# Every path of the root but apt's and dpkg's own bookkeeping, logs and caches.
paths() {
    (cd "$root" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev -o -path ./tmp -o -path ./var/cache \
        -o -path ./var/log -o -path ./var/lib/apt -o -path ./var/lib/dpkg \) -prune -o -print | sort)
}

echo "== apt-get install ./$(basename "$deb")"
cp "$deb" "$root/tmp/"
in_root apt-get update -qq
# Debian's packages it depends on first, so that what the package itself adds can be told apart.
apt_in_root satisfy -y -qq "$(dpkg-deb -f "$deb" Depends)" >/dev/null
before=$(paths)
apt_in_root install -y -qq "/tmp/$(basename "$deb")" >/dev/null
in_root dpkg -s secure-signals | grep -q '^Status: install ok installed' || fail "the package is not installed"
for path in /usr/lib/swift /opt/swift /usr/bin/swift; do
    [[ ! -e "$root$path" ]] || fail "Swift came with it: $path"
done
needs=$(in_root ldd /usr/sbin/secure-signalsd)
if grep -Eq 'swift|not found' <<<"$needs"; then fail "the daemon needs what the root lacks: $needs"; fi
[[ -L "$root/etc/systemd/system/sockets.target.wants/secure-signals.socket" ]] || fail "postinst did not enable the socket"
in_root getent passwd secure-signals >/dev/null || fail "postinst made no secure-signals user"
# Names as the root's own passwd and group files say them (the host's may differ).
[[ "$(in_root stat -c '%U:%G %a' /var/lib/secure-signals)" == "secure-signals:secure-signals 700" ]] ||
    fail "postinst did not make /var/lib/secure-signals"
[[ "$(in_root stat -c '%G' /etc/secure-signals/daemon.json)" == secure-signals ]] ||
    fail "the configuration is not the daemon's group's"

echo "== secure-signalsd --check-config, as the daemon's user"
in_root setpriv --reuid=secure-signals --regid=secure-signals --init-groups \
    secure-signalsd --config /etc/secure-signals/daemon.json --check-config | head -3

echo "== the daemon, asked from outside the root"
chroot --userspec=secure-signals:secure-signals "$root" env -i PATH=/usr/sbin:/usr/bin \
    /usr/sbin/secure-signalsd --config /etc/secure-signals/daemon.json --log-format text &
daemon=$!
socket=$root/run/secure-signals/secure-signals.sock
ask() { curl -sS --fail-with-body --unix-socket "$socket" "$@"; }
for _ in $(seq 100); do [[ -S "$socket" ]] && ask http://localhost/v1/health >/dev/null 2>&1 && break; sleep 0.1; done
ask http://localhost/v1/health | grep -q '"status":"ok"' || fail "no health"
echo "health: $(ask http://localhost/v1/health)"
signals=$(ask -H 'Content-Type: application/json' -d '{"request_id": "deb-test"}' http://localhost/v1/signals)
grep -q '"envelope"' <<<"$signals" || fail "no signal: $signals"
echo "signals: $(grep -o '"adapter":"[^"]*"' <<<"$signals" | sort -u | tr '\n' ' ')"
ad=$(ask -H 'Content-Type: application/json' \
    -d '{"ad_unit": "/21775744923/example/native", "format": "native"}' http://localhost/v1/ads)
grep -q '"ad_id"' <<<"$ad" || fail "no test ad: $ad"
echo "ad: $(grep -o '"ad_id":"[^"]*"' <<<"$ad")"
kill -TERM "$daemon"
wait "$daemon" || fail "the daemon did not stop cleanly"
daemon=""

# As debhelper's scripts do, remove keeps the enablement (a dangling link) and masks the units;
# purge takes both away.
echo "== apt-get remove: only the state, the configuration, the units' masks and enablement stay"
apt_in_root remove -y -qq secure-signals >/dev/null
[[ -f "$root/var/lib/secure-signals/state.sqlite" ]] || fail "remove deleted the daemon's state"
added=$(comm -13 <(echo "$before") <(paths) | sed 's|^\.||' |
    grep -Ev '^/var/lib/secure-signals(/|$)|^/run/secure-signals(/|$)|^/etc/secure-signals(/daemon.json)?$|^/etc/systemd/system/secure-signals\.(socket|service)$|^/etc/systemd/system/sockets\.target\.wants(/secure-signals\.socket)?$|^/var/lib/systemd/deb-systemd-helper-(enabled|masked)(/|$)' || true)
[[ -z "$added" ]] || fail "remove left: $added"
[[ -f "$root/etc/secure-signals/daemon.json" ]] || fail "remove deleted the configuration"

echo "== apt-get purge: nothing stays"
apt_in_root purge -y -qq secure-signals >/dev/null
added=$(comm -13 <(echo "$before") <(paths) | sed 's|^\.||')
[[ -z "$added" ]] || fail "purge left: $added"
echo "test-deb.sh: OK"
