#!/usr/bin/env python3
"""What the daemon's bytes are: a linker map (lld's, gold's or GNU ld's, `-Xlinker -Map=FILE`) summed
by where each input section came from: a package module (`NAME.build/`), a static library of
the Swift runtime (`libNAME.a`), or another object. Prints a Markdown table, largest first;
what is not loaded (debug information, symbol tables) and what takes no file space (.bss) are
left out, as `strip` and the loader would.

    python3 scripts/size-table.py build/secure-signalsd.map [--top 30]
    python3 scripts/size-table.py build/size/secure-signalsd.map --relink .build/release.yaml secure-signalsd

With --relink, the map is made first: the product's link command is read from SwiftPM's build
manifest and run again, writing the program beside the map and the map itself, so that the
build's own products and flags stay as they were (a `-Xlinker -Map` given to `swift build`
would relink the macro tools too, and every module using them would compile again).
"""

import argparse
import collections
import json
import os
import re
import subprocess
import sys

# Output sections that strip removes or that take no space in the file.
NOT_SHIPPED = re.compile(r"^\.(debug|comment|symtab|strtab|shstrtab|bss|tbss)")
OUTPUT = re.compile(r"^(\.\S+|swift5_\S+)\s+0x[0-9a-f]+\s+0x([0-9a-f]+)")
NAME_ALONE = re.compile(r"^ (\S+)\s*$")
INPUT = re.compile(r"^ (\S+)?\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S.*)$")
# lld's: VMA, LMA, size and alignment, then an output section (no indent), an input section
# (`FILE:(SECTION)`, indented 8) or a symbol (indented 16).
LLD = re.compile(r"^\s*[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+ ( *)(\S.*)$")


def origin(path: str) -> str:
    """The module, library or object an input file belongs to."""
    module = re.search(r"/([^/]+)\.build/", path)
    if module:
        return module.group(1)
    archive = re.search(r"/(lib[^/(]+\.a)\(", path)
    return archive.group(1) if archive else path.rsplit("/", 1)[-1]


def lld_sizes(lines):
    """(bytes by origin, bytes by output section) of an lld map."""
    by_origin, by_section = collections.Counter(), collections.Counter()
    section = None
    for line in lines:
        row = LLD.match(line)
        if not row:
            continue
        size, indent, rest = int(row.group(1), 16), len(row.group(2)), row.group(3)
        if indent == 0:
            section = rest
            if not NOT_SHIPPED.match(section):
                by_section[section] += size
        elif indent == 8 and size and section and not NOT_SHIPPED.match(section) and not rest.startswith("<"):
            by_origin[origin(rest.rsplit(":(", 1)[0])] += size
    return by_origin, by_section


def sizes(lines):
    """(bytes by origin, bytes by output section) of the map's memory map."""
    lines = list(lines)
    if lines and lines[0].split() == ["VMA", "LMA", "Size", "Align", "Out", "In", "Symbol"]:
        return lld_sizes(lines)
    by_origin, by_section = collections.Counter(), collections.Counter()
    in_map, section, named = False, None, None
    for line in lines:
        if line.startswith(("Memory map", "Linker script and memory map")):
            in_map = True
            continue
        if not in_map:
            continue
        output = OUTPUT.match(line)
        if output:
            section, named = output.group(1), None
            if not NOT_SHIPPED.match(section):
                by_section[section] += int(output.group(2), 16)
            continue
        alone = NAME_ALONE.match(line)
        if alone:
            named = alone.group(1)
            continue
        piece = INPUT.match(line)
        if piece and (piece.group(1) or named) and section and not NOT_SHIPPED.match(section):
            size = int(piece.group(2), 16)
            if size:
                by_origin[origin(piece.group(3).strip())] += size
        named = None
    return by_origin, by_section


def relink(manifest: str, product: str, map_path: str) -> str | None:
    """Runs `product`'s link command from SwiftPM's `manifest` again with a map; an error or None."""
    try:
        with open(manifest) as file:
            text = file.read()
    except OSError as error:
        return f"{manifest}: {error.strerror} (build the product first)"
    command = re.search(r'description: "Linking [^"]*/' + re.escape(product) + r'"\n(?:    .*\n)*?    args: (\[.*\])\n', text)
    if command is None:
        return f"{manifest}: no link command for {product}"
    arguments = json.loads(command.group(1))
    output = arguments.index("-o") + 1
    arguments[output] = os.path.splitext(map_path)[0]
    result = subprocess.run(arguments + ["-Xlinker", f"-Map={map_path}"], capture_output=True, text=True)
    return None if result.returncode == 0 else f"linking {product} again failed: {result.stderr.strip()[-500:]}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("map", help="the linker map")
    parser.add_argument("--top", type=int, default=30, help="rows before the rest are summed (default 30)")
    parser.add_argument("--relink", nargs=2, metavar=("MANIFEST", "PRODUCT"), help="make the map first (above)")
    arguments = parser.parse_args()
    if arguments.relink:
        failure = relink(*arguments.relink, arguments.map)
        if failure:
            print(f"size-table.py: {failure}", file=sys.stderr)
            return 1
    try:
        with open(arguments.map, errors="replace") as file:
            by_origin, by_section = sizes(file)
    except OSError as error:
        print(f"size-table.py: {arguments.map}: {error.strerror}", file=sys.stderr)
        return 1
    if not by_origin:
        print(f"size-table.py: {arguments.map}: no memory map in it (link with -Xlinker -Map=FILE)", file=sys.stderr)
        return 1
    total = sum(by_section.values())
    mib = lambda n: f"{n / 1048576:.2f}"
    print(f"Loaded sections: {mib(total)} MiB, of which attributed to an input: {mib(sum(by_origin.values()))} MiB")
    print("(the rest is the linker's own: unwind tables, dynamic symbols, relocations, hash tables).\n")
    print("| from | MiB | share |\n|---|---:|---:|")
    ranked = by_origin.most_common()
    for name, size in ranked[: arguments.top]:
        print(f"| {name} | {mib(size)} | {100 * size / total:.1f}% |")
    if len(ranked) > arguments.top:
        rest = sum(size for _, size in ranked[arguments.top :])
        print(f"| {len(ranked) - arguments.top} more | {mib(rest)} | {100 * rest / total:.1f}% |")
    print("\n| section | MiB |\n|---|---:|")
    for name, size in by_section.most_common(10):
        print(f"| {name} | {mib(size)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
