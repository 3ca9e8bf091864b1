// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "secure-signals",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "secure-signals", targets: ["secure-signals"]),
        .library(name: "SignalCrypto", targets: ["SignalCrypto"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0")
    ],
    targets: [
        // The system's OpenSSL 3 libcrypto, with a header-only shim where Swift cannot reach.
        .systemLibrary(
            name: "CLibCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // HPKE (RFC 9180), key configurations (RFC 9458 §3), envelopes and PEM keys.
        .target(
            name: "SignalCrypto",
            dependencies: ["CLibCrypto"]
        ),
        // Measurements behind `secure-signals bench`.
        .target(
            name: "Bench",
            dependencies: ["SignalCrypto", "CLibCrypto"]
        ),
        .executableTarget(
            name: "secure-signals",
            dependencies: [
                "SignalCrypto",
                "Bench",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "SignalCryptoTests",
            dependencies: ["SignalCrypto", "CLibCrypto"]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["secure-signals", "SignalCrypto"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
