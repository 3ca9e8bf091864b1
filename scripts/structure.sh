#!/usr/bin/env bash
# Prints the structural figures the house keeps to (see docs/architecture.md), each beside its
# target: code written twice, hand-written configuration decoders, unstructured tasks, sleeps
# in tests, API paths spelled outside the API's own module, long files. The file-length target
# is checked by ArchitectureTests; the others are reported here until they are met, then
# checked the same way (a target met is a test, not a hope).
set -euo pipefail
cd "$(dirname "$0")/.."

row() { printf '%-58s %6s   target %s\n' "$1" "$2" "$3"; }

if command -v duplicates >/dev/null; then
    pairs=$(duplicates --repo Sources --most 1 --seconds 60 | head -1 | grep -oE '^[0-9]+' || echo "?")
else
    pairs="n/a"
fi
row "duplicates pairs in Sources" "$pairs" "<= 40"
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
