#!/usr/bin/env bash
# Man pages and shell completions of both binaries, made by swift-argument-parser from their
# --help: build/man/secure-signals.1, build/man/secure-signalsd.8 (a daemon's page is in section
# 8) and build/completions/{bash,zsh,fish}/. `make install` installs them.
#   scripts/man-and-completions.sh [BINDIR]   completions from the binaries in BINDIR
#                                             (default: a release build made here)
set -euo pipefail
cd "$(dirname "$0")/.."
bindir=${1:-}
mkdir -p build/man build/completions/bash build/completions/zsh build/completions/fish
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for section in 1 8; do
    mkdir -p "$scratch/$section"
    swift package --allow-writing-to-package-directory generate-manual --section "$section" \
        --output-directory "$scratch/$section" >/dev/null
done
cp "$scratch/1/secure-signals.1" build/man/secure-signals.1
cp "$scratch/8/secure-signalsd.8" build/man/secure-signalsd.8
if [[ -z "$bindir" ]]; then
    swift build -c release --product secure-signals >/dev/null
    swift build -c release --product secure-signalsd >/dev/null
    bindir=.build/release
fi
for tool in secure-signals secure-signalsd; do
    "$bindir/$tool" --generate-completion-script bash >"build/completions/bash/$tool"
    "$bindir/$tool" --generate-completion-script zsh >"build/completions/zsh/_$tool"
    "$bindir/$tool" --generate-completion-script fish >"build/completions/fish/$tool.fish"
done
ls build/man build/completions/*
