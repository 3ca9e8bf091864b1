#!/usr/bin/env bash
# `make deb`: build/secure-signals_VERSION_ARCH.deb from the tree `make install` writes, with
# dpkg-deb. Depends: from the binaries' real shared-library needs (dpkg-shlibdeps); the
# configuration a conffile; maintainer scripts that create the user and directories
# (systemd-sysusers, systemd-tmpfiles) and enable the socket the Debian way; state kept on
# remove, deleted only on purge. Then lintian, when it is installed, must report no error.
set -euo pipefail
cd "$(dirname "$0")/.."
here=$PWD
# What dh_fixperms would leave: directories 0755, files 0644 or 0755, whatever the caller's umask.
umask 022

source packaging/lib.sh
version=$(daemon_version)
# DEB_ARCH: the target's Debian architecture when cross-building (arm64, armhf).
arch=${DEB_ARCH:-$(dpkg --print-architecture)}
package=secure-signals
root=build/deb-root
deb=build/${package}_${version}_${arch}.deb

test -x build/bin/secure-signalsd || make build
rm -rf "$root"
make --no-print-directory install DESTDIR="$here/$root" PREFIX=/usr SYSCONFDIR=/etc >/dev/null

doc=$root/usr/share/doc/$package
# Debian's documentation rules: man pages and the changelog compressed, the licence as copyright.
gzip -9n "$root"/usr/share/man/man*/*
gzip -9n "$doc/CHANGELOG.md"
install -m 0644 packaging/debian/copyright "$doc/copyright"
# MAINTAINER: who answers for the package on your devices.
maintainer=${MAINTAINER:-secure-signals developers <secure-signals@example.org>}
# A native package's changelog, in Debian's format, dated by the commit it is built from.
date=$(date -R -d "@$(git log -1 --format=%ct 2>/dev/null || date +%s)")
printf '%s (%s) unstable; urgency=medium\n\n  * Built from the upstream tree; its changes are in CHANGELOG.md.gz.\n\n -- %s  %s\n' \
    "$package" "$version" "$maintainer" "$date" | gzip -9n >"$doc/changelog.gz"
# Why lintian's findings that stand are right for this package.
install -D -m 0644 packaging/debian/lintian-overrides "$root/usr/share/lintian/overrides/$package"

# Depends: what the binaries link, found by dpkg-shlibdeps (it reads a debian/control, so it
# runs in a scratch directory that has one).
shlibs=$(mktemp -d)
trap 'rm -rf "$shlibs"' EXIT
mkdir -p "$shlibs/debian"
printf 'Source: %s\n\nPackage: %s\nArchitecture: any\n' "$package" "$package" >"$shlibs/debian/control"
depends=$(cd "$shlibs" && dpkg-shlibdeps -O "$here/$root/usr/sbin/secure-signalsd" "$here/$root/usr/bin/secure-signals" |
    sed -n 's/^shlibs:Depends=//p')
[[ -n "$depends" ]] || { echo "make-deb.sh: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
# Packed relative relocations (make's RELR=yes) need glibc 2.36's loader: the binary asks for
# the GLIBC_ABI_DT_RELR version, which names no symbol, so dpkg-shlibdeps does not see it. The
# libc6 it found is raised to 2.36 when lower (never lowered).
versions=$(readelf -V --wide "$root/usr/sbin/secure-signalsd")
if grep -q GLIBC_ABI_DT_RELR <<<"$versions"; then
    found=$(grep -oE 'libc6( \(>= [^)]+\))?' <<<"$depends" | head -1)
    [[ -n "$found" ]] || { echo "make-deb.sh: no libc6 in Depends: $depends" >&2; exit 1; }
    least=$(sed -nE 's/^libc6 \(>= (.+)\)$/\1/p' <<<"$found")
    if [[ -z "$least" ]] || dpkg --compare-versions "$least" lt 2.36; then
        depends=${depends/"$found"/libc6 (>= 2.36)}
    fi
fi

chmod -R go-w,a+rX "$root"
chmod 0640 "$root/etc/secure-signals/daemon.json"
mkdir -p "$root/DEBIAN"
installed_size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@DEPENDS@/$depends/" -e "s|@MAINTAINER@|$maintainer|" \
    -e "s/@INSTALLED_SIZE@/$installed_size/" packaging/debian/control >"$root/DEBIAN/control"
for script in postinst prerm postrm; do
    install -m 0755 "packaging/debian/$script" "$root/DEBIAN/$script"
done
(cd "$root" && find etc -type f | sed 's|^|/|' | sort) >"$root/DEBIAN/conffiles"
(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/conffiles" "$root/DEBIAN/md5sums"

dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
dpkg-deb -f "$deb" Package Version Architecture Depends Installed-Size
bash packaging/check-deb.sh "$deb"

if command -v lintian >/dev/null; then
    # Errors fail the package; warnings are printed for a person to weigh.
    lintian --tag-display-limit 0 "$deb" ||
        { echo "make-deb.sh: lintian reported errors" >&2; exit 1; }
    echo "lintian: no errors"
elif [[ -n "${REQUIRE_LINTIAN:-}" ]]; then
    echo "make-deb.sh: lintian is not installed, and REQUIRE_LINTIAN is set" >&2
    exit 1
else
    echo "make-deb.sh: lintian is not installed (apt-get install lintian); the package was not checked"
fi
