#!/usr/bin/env bash
# The .deb as built: its control fields (dpkg-deb -f), its conffiles, and its contents
# (dpkg-deb -c): the files docs/packaging.md lists (man pages compressed, the upstream
# changelog compressed) plus Debian's copyright, changelog and lintian overrides, nothing else.
#   bash packaging/check-deb.sh build/secure-signals_VERSION_ARCH.deb
set -euo pipefail
cd "$(dirname "$0")/.."
deb=$1
fail() { echo "check-deb.sh: FAIL: $*" >&2; exit 1; }
source packaging/lib.sh

version=$(daemon_version)
[[ "$(dpkg-deb -f "$deb" Package)" == secure-signals ]] || fail "Package is not secure-signals"
[[ "$(dpkg-deb -f "$deb" Version)" == "$version" ]] || fail "Version is not $version"
[[ "$(basename "$deb")" == "secure-signals_${version}_$(dpkg-deb -f "$deb" Architecture).deb" ]] ||
    fail "the file name does not say the package's version and architecture"
depends=$(dpkg-deb -f "$deb" Depends)
names=$(tr ',' '\n' <<<"$depends" | awk '{ print $1 }')
# libssl3 is libssl3t64 from Debian 13 and Ubuntu 24.04 on.
for needed in libc6 'libssl3(t64)?' 'libstdc\+\+6' systemd init-system-helpers; do
    grep -qxE "$needed" <<<"$names" || fail "Depends lacks $needed: $depends"
done
if grep -Eq 'swift|icu' <<<"$names"; then fail "Depends names a Swift or ICU package: $depends"; fi
# SQLiteNIO builds its own SQLite into the daemon: the system's is not linked.
if grep -Eq '^libsqlite3' <<<"$names"; then fail "Depends names the system's SQLite: $depends"; fi
# A daemon linked with packed relative relocations (make's RELR=yes) runs on glibc 2.36 or later.
daemon_file=$(mktemp)
trap 'rm -f "$daemon_file"' EXIT
dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/sbin/secure-signalsd >"$daemon_file"
versions=$(readelf -V --wide "$daemon_file")
if grep -q GLIBC_ABI_DT_RELR <<<"$versions"; then
    least=$(sed -nE 's/(^|.*, )libc6 \(>= ([^)]+)\).*/\2/p' <<<"$depends")
    [[ -n "$least" ]] && dpkg --compare-versions "$least" ge 2.36 ||
        fail "the daemon uses DT_RELR (glibc 2.36) but Depends says: $depends"
fi
[[ "$(dpkg-deb -I "$deb" conffiles)" == "/etc/secure-signals/daemon.json" ]] || fail "the conffiles are not the configuration"
for script in postinst prerm postrm; do
    dpkg-deb -I "$deb" "$script" | grep -q 'secure-signals' || fail "the package has no $script"
done

expected=$(
    documented_files |
        sed -e 's|^\(/usr/share/man/.*\)$|\1.gz|' -e 's|^\(/usr/share/doc/secure-signals/CHANGELOG.md\)$|\1.gz|'
    printf '%s\n' /usr/share/doc/secure-signals/copyright /usr/share/doc/secure-signals/changelog.gz \
        /usr/share/lintian/overrides/secure-signals
)
actual=$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $6 }' | sed 's|^\.||' | sort)
if [[ "$(sort <<<"$expected")" != "$actual" ]]; then
    diff <(sort <<<"$expected") <(echo "$actual") || true
    fail "the package holds other files than docs/packaging.md lists"
fi
mode() { dpkg-deb -c "$deb" | awk -v path="./$1" '$6 == path || $6 == path "/" { print $1 }'; }
[[ "$(mode usr/sbin/secure-signalsd)" == "-rwxr-xr-x" ]] || fail "the daemon's mode is $(mode usr/sbin/secure-signalsd)"
[[ "$(mode etc/secure-signals/daemon.json)" == "-rw-r-----" ]] || fail "the configuration is not 0640"
[[ "$(mode usr/share/doc/secure-signals/copyright)" == "-rw-r--r--" ]] || fail "the copyright is not 0644"
echo "check-deb.sh: $(basename "$deb"): fields, conffiles and the $(wc -l <<<"$actual") files as documented"
