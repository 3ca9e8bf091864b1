#!/usr/bin/env bash
# Prints the structural figures the house keeps to (see docs/architecture.md), each beside its
# target: code written twice, hand-written configuration decoders, unstructured tasks, sleeps
# in tests, API paths spelled outside the API's own module, long files. A target met is checked,
# not hoped for: by ArchitectureTests, or by .ci/run for code written twice (`duplicates` is a
# tool of this machine, not of the package).
set -euo pipefail
cd "$(dirname "$0")/.."

row() { printf '%-58s %6s   target %s\n' "$1" "$2" "$3"; }

if command -v duplicates >/dev/null; then
    pairs=$(duplicates --repo Sources --most 1 --seconds 60 | sed -n 1p | grep -oE '^[0-9]+' || echo "?")
else
    pairs="n/a"
fi
row "duplicates pairs in Sources" "$pairs" "<= 40 (.ci/run)"
row "init(from:) under Sources/Daemon/Configuration" \
    "$(grep -rE 'init\(from decoder' Sources/Daemon/Configuration --include='*.swift' | wc -l)" "<= 5 (ArchitectureTests)"
row "Task { in Sources (outside comments)" \
    "$(grep -rE '(^|[^A-Za-z.])Task \{' Sources --include='*.swift' | grep -vE '^\S+:\s*//' | wc -l)" "<= 8 (ArchitectureTests)"
row "sleeps in Tests (Task.sleep, sleep(, usleep()" \
    "$(grep -rE 'Task\.sleep|[^a-zA-Z.]sleep\(|usleep\(' Tests --include='*.swift' | wc -l)" "<= 12 (ArchitectureTests)"
row "\"/v1/ literals in Sources outside the API module" \
    "$(grep -rF '"/v1/' Sources --include='*.swift' | grep -v '^Sources/API/' | grep -vE '^\S+:\s*//' | wc -l)" \
    "0 (ArchitectureTests)"
longest=$(find Sources -name '*.swift' -exec wc -l {} + | grep -v ' total$' | sort -n | tail -1)
row "longest source file (${longest##* })" "${longest%% S*}" "<= 400 (ArchitectureTests)"
