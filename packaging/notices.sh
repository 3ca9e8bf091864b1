#!/usr/bin/env bash
# build/NOTICES: the NOTICE files of the Swift packages the build resolved (the binaries link
# most of them statically), which the Apache License 2.0 (section 4(d)) asks a distribution to
# pass on. `make install` installs it beside the other documents; debian/copyright names the
# licences.
#   packaging/notices.sh [CHECKOUTS]   the resolved packages (default: .build/checkouts; `make`
#                                      passes those of its own build directory)
set -euo pipefail
cd "$(dirname "$0")/.."
checkouts=${1:-.build/checkouts}
if [[ ! -d "$checkouts" ]]; then
    echo "packaging/notices.sh: $checkouts does not exist: build first, or name the checkouts" >&2
    exit 1
fi
found=$(find "$checkouts" -mindepth 2 -maxdepth 2 -name NOTICE.txt | sort)
[[ -n "$found" ]] || { echo "packaging/notices.sh: no NOTICE.txt under $checkouts" >&2; exit 1; }
mkdir -p build
{
    echo "secure-signals is built from these Swift packages and links most of them into its"
    echo "binaries. Their NOTICE files follow, as the Apache License 2.0 asks. The licences are in packaging/debian/copyright (in the"
    echo "Debian package: /usr/share/doc/secure-signals/copyright)."
    for notice in $found; do
        package=$(basename "$(dirname "$notice")")
        printf '\n==== %s ====\n\n' "$package"
        cat "$notice"
    done
} >build/NOTICES
echo "build/NOTICES: $(grep -c '^==== ' build/NOTICES) packages"
