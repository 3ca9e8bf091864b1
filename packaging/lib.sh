# What the packaging scripts share; sourced from the repository root.

# The daemon's version, as the code says it (Sources/SharedTypes/DaemonVersion.swift).
daemon_version() {
    sed -n 's/.*static let current = "\(.*\)".*/\1/p' Sources/SharedTypes/DaemonVersion.swift
}

# The files `make install` writes, as docs/packaging.md lists them, one absolute path a line.
documented_files() {
    sed -n '/<!-- installed files -->/,/<!-- end of installed files -->/p' docs/packaging.md | grep '^/'
}
