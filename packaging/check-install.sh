#!/usr/bin/env bash
# `make check-install`: `make install` into a temporary root must write exactly the files
# docs/packaging.md lists, and the installed binaries must need no Swift library (they link
# the Swift runtime statically) and nothing under the toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

test -x build/bin/secure-signalsd || make build
make --no-print-directory install DESTDIR="$root" >/dev/null
source packaging/lib.sh
expected=$(documented_files | sort)
actual=$(cd "$root" && find . -type f | sed 's|^\.||' | sort)
if [[ "$expected" != "$actual" ]]; then
    diff <(echo "$expected") <(echo "$actual") | sed 's/^</  documented only:/; s/^>/  installed only:/' | grep only || true
    echo "check-install.sh: make install wrote other files than docs/packaging.md lists" >&2
    exit 1
fi
echo "check-install.sh: make install wrote the $(wc -l <<<"$actual") documented files"

# What each binary asks the dynamic loader for (readelf: the same on any host), and that the
# loader finds it here (ldd).
for binary in "$root/usr/sbin/secure-signalsd" "$root/usr/bin/secure-signals"; do
    dynamic=$(readelf -d "$binary")
    needed=$(sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' <<<"$dynamic")
    if grep -Eiq 'swift|Foundation|dispatch|BlocksRuntime' <<<"$needed" || grep -Eq '\((RPATH|RUNPATH)\)' <<<"$dynamic"; then
        echo "$dynamic"
        echo "check-install.sh: ${binary#"$root"} needs a Swift library, or searches a path of its own" >&2
        exit 1
    fi
    if ldd "$binary" | grep -q 'not found'; then
        ldd "$binary"
        echo "check-install.sh: ${binary#"$root"} needs a library this system lacks" >&2
        exit 1
    fi
    echo "check-install.sh: ${binary#"$root"} needs only: $(tr '\n' ' ' <<<"$needed")"
done

# The CLI links FoundationEssentials only: Foundation's internationalization layer, and ICU's
# data with it, would more than double it (docs/packaging.md). A dependency that brings them
# back shows here, whatever the sources import.
if grep -q FoundationInternationalization "$root/usr/bin/secure-signals"; then
    echo "check-install.sh: /usr/bin/secure-signals links Foundation's internationalization layer (and ICU)" >&2
    exit 1
fi
echo "check-install.sh: /usr/bin/secure-signals links no Foundation internationalization or ICU"

# uninstall leaves nothing but a changed configuration.
echo '{}' >"$root/etc/secure-signals/daemon.json"
make --no-print-directory uninstall DESTDIR="$root" >/dev/null
left=$(cd "$root" && find . -type f | sed 's|^\.||')
if [[ "$left" != "/etc/secure-signals/daemon.json" ]]; then
    echo "$left"
    echo "check-install.sh: make uninstall left other files than the changed configuration" >&2
    exit 1
fi
echo "check-install.sh: make uninstall removed everything but the changed configuration"
