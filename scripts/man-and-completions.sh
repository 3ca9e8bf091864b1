#!/usr/bin/env bash
# Man pages and shell completions of both binaries, made by swift-argument-parser from their
# --help: build/man/secure-signals.1, build/man/secure-signalsd.8 (a daemon's page is in section
# 8) and build/completions/{bash,zsh,fish}/. `make install` installs them.
#   scripts/man-and-completions.sh [BINDIR]   from the binaries in BINDIR, which this machine
#                                             must be able to run (default: a release build here)
# swift-argument-parser's generate-manual tool is run on the binaries directly: its package
# plugin would build every product again in release mode first.
set -euo pipefail
cd "$(dirname "$0")/.."
bindir=${1:-}
if [[ -z "$bindir" ]]; then
    swift build -c release --product secure-signals >/dev/null
    swift build -c release --product secure-signalsd >/dev/null
    bindir=.build/release
fi
mkdir -p build/man build/completions/bash build/completions/zsh build/completions/fish
swift build --product generate-manual >/dev/null
manual=$(swift build --show-bin-path)/generate-manual
"$manual" "$bindir/secure-signals" --section 1 --output-directory build/man
"$manual" "$bindir/secure-signalsd" --section 8 --output-directory build/man
for tool in secure-signals secure-signalsd; do
    "$bindir/$tool" --generate-completion-script bash >"build/completions/bash/$tool"
    "$bindir/$tool" --generate-completion-script zsh >"build/completions/zsh/_$tool"
    "$bindir/$tool" --generate-completion-script fish >"build/completions/fish/$tool.fish"
done
ls build/man build/completions/*
