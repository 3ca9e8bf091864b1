// swift-tools-version: 6.1
import CompilerPluginSupport
import PackageDescription

let package = Package(
    name: "secure-signals",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "secure-signalsd", targets: ["secure-signalsd"]),
        .executable(name: "secure-signals", targets: ["secure-signals"]),
        .executable(name: "secure-signals-bench", targets: ["secure-signals-bench"]),
        .library(name: "SignalCrypto", targets: ["SignalCrypto"]),
    ],
    // Pinned to the minor versions the project is tested with: two builds of one commit resolve
    // alike, and patch releases (fixes) still come in.
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", .upToNextMinor(from: "1.8.2")),
        .package(url: "https://github.com/apple/swift-async-algorithms", .upToNextMinor(from: "1.1.4")),
        .package(url: "https://github.com/apple/swift-collections", .upToNextMinor(from: "1.6.0")),
        .package(url: "https://github.com/apple/swift-log", .upToNextMinor(from: "1.16.2")),
        .package(url: "https://github.com/apple/swift-metrics", .upToNextMinor(from: "2.13.0")),
        .package(url: "https://github.com/apple/swift-nio", .upToNextMinor(from: "2.101.3")),
        .package(url: "https://github.com/apple/swift-nio-extras", .upToNextMinor(from: "1.35.2")),
        .package(url: "https://github.com/apple/swift-nio-ssl", .upToNextMinor(from: "2.37.6")),
        .package(url: "https://github.com/hummingbird-project/hummingbird", .upToNextMinor(from: "2.28.1"), traits: []),
        .package(url: "https://github.com/swift-server/async-http-client", .upToNextMinor(from: "1.37.0")),
        .package(url: "https://github.com/swift-server/swift-prometheus", .upToNextMinor(from: "2.4.1")),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", .upToNextMinor(from: "2.13.0")),
        .package(url: "https://github.com/swiftlang/swift-subprocess", .upToNextMinor(from: "1.0.2")),
        .package(url: "https://github.com/swiftlang/swift-syntax", .upToNextMinor(from: "603.0.1")),
        .package(url: "https://github.com/vapor/sqlite-nio", .upToNextMinor(from: "1.13.2")),
    ],
    targets: [
        // The system's OpenSSL 3 libcrypto, with a header-only shim where Swift cannot reach.
        .systemLibrary(
            name: "CLibCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // The system's libxml2, which VAST reads documents with (network and entity expansion off).
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        // prctl(2), which Swift cannot call (it is variadic): the daemon becomes its descendants' subreaper.
        .systemLibrary(name: "CProcessControl"),
        // HPKE (RFC 9180), key configurations (RFC 9458 §3), envelopes and PEM keys.
        .target(
            name: "SignalCrypto",
            dependencies: ["CLibCrypto", "CProcessControl"]
        ),
        // Time: timeouts that answer whatever the operation does, durations, the daemon's clock.
        .target(name: "Timing"),
        // The value types every module speaks: versions, the privacy state, adapter options and
        // statuses, a signals answer and the protocol that gives one, and the wire format.
        .target(name: "SharedTypes", dependencies: ["WireFormatMacros"]),
        // The socket API's surface: every endpoint (method and path pattern), what each owes.
        // The daemon serves it, the client calls it; FoundationEssentials only.
        .target(name: "API", dependencies: ["SharedTypes"]),
        // `@WireKeys`: a wire type's CodingKeys in snake_case, spelled when the code compiles;
        // `@Settings`, a configuration section's strict decoder; `@MemberwiseInit`.
        .macro(
            name: "WireFormatMacros",
            dependencies: [
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
            ]
        ),
        // Signal adapters: the protocol, the registry, the collector. No HTTP, no sockets.
        .target(
            name: "SecureSignals",
            dependencies: [
                "SignalCrypto", "Timing", "SharedTypes", "Consent",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // The IAB consent strings (TCF v2, GPP, US Privacy) decoded, and what they allow.
        .target(name: "Consent", dependencies: ["SharedTypes"]),
        // Native and rewarded mediation: formats, the ad-network adapter protocol, the
        // waterfall, the ad store and its events. No HTTP, no sockets; signals only through
        // `SignalProvider`.
        .target(
            name: "Mediation",
            dependencies: [
                "Timing", "SharedTypes", "Consent",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // The durable state on SQLite (SQLiteNIO, which builds its own SQLite): what the daemon owes
        // across a crash or a power cut, behind the protocols Mediation declares.
        .target(
            name: "StateStore",
            dependencies: [
                "Mediation", "SharedTypes", "Timing",
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The inspector's memory: the last traces of loads and signals requests, bounded, and
        // their live subscribers. Written through SharedTypes' `TraceRecorder`.
        .target(
            name: "Inspector",
            dependencies: ["SharedTypes", .product(name: "DequeModule", package: "swift-collections")]
        ),
        // VAST 2.0-4.2: reading documents, following wrappers, choosing a media file.
        .target(name: "VAST", dependencies: ["CLibXML2", "SharedTypes"]),
        // The built-in adapters, and the exec adapter that runs a program as one.
        .target(
            name: "Adapters",
            dependencies: [
                "SecureSignals", "Mediation", "VAST", "SignalCrypto", "Timing", "SharedTypes", "Consent",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Subprocess", package: "swift-subprocess"),
            ]
        ),
        // The daemon's HTTP/1.1 client for ad servers, trackers and key URLs.
        .target(
            name: "OutboundHTTP",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),
        // Config, HTTP routes on the Unix socket, peer credentials, systemd, metrics.
        .target(
            name: "Daemon",
            dependencies: [
                "SecureSignals", "Mediation", "Inspector", "Adapters", "SignalCrypto", "Timing", "SharedTypes",
                "CProcessControl",
                "StateStore", "Consent", "API", "OutboundHTTP",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        // The client side of the socket API, for the CLI and the benchmarks.
        .target(
            name: "Client",
            dependencies: [
                "SharedTypes", "API",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // Measurements behind `secure-signals bench`, and the child processes they and the tests start.
        .target(
            name: "Bench",
            dependencies: [
                "SignalCrypto", "CLibCrypto", "Client", "SharedTypes", "Timing", "API",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "secure-signalsd",
            dependencies: [
                "Daemon", "SharedTypes",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The CLI: a client of the socket API and a key tool. It links no server.
        .executableTarget(
            name: "secure-signals",
            dependencies: [
                "SignalCrypto", "SharedTypes", "Client", "API",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // `secure-signals bench`: the benchmarks, which start local bidders and daemons.
        .executableTarget(
            name: "secure-signals-bench",
            dependencies: [
                "Bench", "SharedTypes",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Adapters that hang, fail or are slow: for the tests, not the product.
        .target(
            name: "TestAdapters",
            dependencies: ["SecureSignals", "SharedTypes"],
            path: "Tests/TestAdapters"
        ),
        // What the tests share: a clock that moves only when a test moves it, waits for events,
        // temporary directories, the demo recipient, a fake ad server, the golden transcripts.
        .target(
            name: "TestSupport",
            dependencies: [
                "SignalCrypto", "Client", "Bench", "Mediation", "Timing",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tests/TestSupport"
        ),
        // The daemon with the test adapters registered too, for the end-to-end tests.
        .executableTarget(
            name: "secure-signalsd-testbed",
            dependencies: [
                "Daemon", "Adapters", "TestAdapters",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tests/Testbed"
        ),
        .testTarget(
            name: "SharedTypesTests",
            dependencies: [
                "SharedTypes", "WireFormatMacros", "API",
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
            ]
        ),
        // Time: the backoff every retry shares.
        .testTarget(name: "TimingTests", dependencies: ["Timing", "TestSupport"]),
        .testTarget(name: "InspectorTests", dependencies: ["Inspector", "SharedTypes"]),
        .testTarget(
            name: "SignalCryptoTests",
            dependencies: ["SignalCrypto", "CLibCrypto", "CProcessControl", "TestSupport"]
        ),
        .testTarget(
            name: "SecureSignalsTests",
            dependencies: [
                "SecureSignals", "Adapters", "SignalCrypto", "TestAdapters", "TestSupport", "Timing", "SharedTypes",
                "Consent",
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        .testTarget(
            name: "MediationTests",
            dependencies: [
                "Mediation", "Adapters", "SecureSignals", "TestSupport", "Timing", "SharedTypes", "StateStore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
        // The state store on real SQLite files: migrations, durability settings, refusals.
        .testTarget(
            name: "StateStoreTests",
            dependencies: [
                "StateStore", "Mediation", "SharedTypes", "TestSupport", "Timing",
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
        // The decoders against the IAB's own test vectors (Tests/Fixtures/consent).
        .testTarget(
            name: "ConsentTests",
            dependencies: ["Consent", "SharedTypes", "TestSupport"]
        ),
        .testTarget(
            name: "VASTTests",
            dependencies: ["VAST"]
        ),
        // The socket API's routes, in-process: the daemon built from a configuration and asked
        // through HummingbirdTesting, with no socket and no binary.
        .testTarget(
            name: "RouteTests",
            dependencies: [
                "API",
                "Daemon", "Adapters", "TestAdapters", "TestSupport", "SecureSignals", "SharedTypes", "SignalCrypto",
                "Client", "Mediation", "Timing", "StateStore", "Consent", "Inspector",
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
        // The ad networks against real local HTTP servers (bidders, VAST ad servers), in-process:
        // every vendored sample, and the HTTP client they reach servers with.
        .testTarget(
            name: "AdNetworkTests",
            dependencies: [
                "Adapters", "Mediation", "SecureSignals", "SharedTypes", "TestSupport", "Daemon", "VAST", "StateStore",
                "Timing", "OutboundHTTP",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "secure-signals", "secure-signals-bench", "secure-signalsd", "secure-signalsd-testbed", "SignalCrypto",
                "SecureSignals",
                "SharedTypes", "Timing", "TestSupport",
                "Client", "Daemon", "Adapters", "Mediation", "VAST", "Bench",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
