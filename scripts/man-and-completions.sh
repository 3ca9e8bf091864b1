#!/usr/bin/env bash
# Man pages and shell completions of both binaries, made by swift-argument-parser from their
# --help: build/man/*.1 and build/completions/{bash,zsh,fish}/. Installing them is the package's work.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build/man build/completions/bash build/completions/zsh build/completions/fish
swift package --allow-writing-to-package-directory generate-manual --output-directory build/man >/dev/null
rm -f build/man/secure-signalsd-testbed.1   # the tests' daemon, not shipped
swift build -c release --product secure-signals >/dev/null
swift build -c release --product secure-signalsd >/dev/null
for tool in secure-signals secure-signalsd; do
    .build/release/$tool --generate-completion-script bash >"build/completions/bash/$tool"
    .build/release/$tool --generate-completion-script zsh >"build/completions/zsh/_$tool"
    .build/release/$tool --generate-completion-script fish >"build/completions/fish/$tool.fish"
done
ls build/man build/completions/*
