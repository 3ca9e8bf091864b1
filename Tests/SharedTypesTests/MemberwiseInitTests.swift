import SharedTypes
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing
import WireFormatMacros

/// `@MemberwiseInit` writes the initializer Swift would synthesize, at the type's access level.
struct MemberwiseInitTests {
    @Test func oneParameterAStoredPropertyWithItsDefault() {
        expand(
            """
            @MemberwiseInit
            public struct Load {
                public static let standard = 9
                public var socketPath: String
                public var seconds: Double = 9
                public var pause: Duration?
                public let id: String
                public let kind = "load"
                public var onDone: @Sendable () -> Void
                public var a, b: Int
                public var computed: Int { 1 }
            }
            """,
            into: """
                public struct Load {
                    public static let standard = 9
                    public var socketPath: String
                    public var seconds: Double = 9
                    public var pause: Duration?
                    public let id: String
                    public let kind = "load"
                    public var onDone: @Sendable () -> Void
                    public var a, b: Int
                    public var computed: Int { 1 }

                    public init(socketPath: String, seconds: Double = 9, pause: Duration? = nil, id: String, onDone: @escaping @Sendable () -> Void, a: Int, b: Int) {
                        self.socketPath = socketPath
                        self.seconds = seconds
                        self.pause = pause
                        self.id = id
                        self.onDone = onDone
                        self.a = a
                        self.b = b
                    }
                }
                """)
    }

    @Test func anInternalTypeGetsAnInternalInitializer() {
        expand(
            """
            @MemberwiseInit
            struct Pair {
                var first: Int
                let second: Int?
            }
            """,
            into: """
                struct Pair {
                    var first: Int
                    let second: Int?

                    init(first: Int, second: Int?) {
                        self.first = first
                        self.second = second
                    }
                }
                """)
    }

    @Test func aPropertyWithoutAWrittenTypeIsRefused() {
        var failures: [String] = []
        assertMacroExpansion(
            """
            @MemberwiseInit
            struct Inferred {
                var count = 0
            }
            """,
            expandedSource: """
                struct Inferred {
                    var count = 0
                }
                """,
            diagnostics: [
                DiagnosticSpec(message: "@MemberwiseInit needs the type of `count` written", line: 3, column: 9)
            ],
            macroSpecs: Self.macros, failureHandler: { failures.append($0.message) })
        #expect(failures.isEmpty, "\(failures)")
    }

    static let macros: [String: MacroSpec] = ["MemberwiseInit": MacroSpec(type: MemberwiseInitMacro.self)]

    func expand(_ source: String, into expanded: String, sourceLocation: SourceLocation = #_sourceLocation) {
        var failures: [String] = []
        assertMacroExpansion(
            source, expandedSource: expanded, macroSpecs: Self.macros, failureHandler: { failures.append($0.message) })
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))", sourceLocation: sourceLocation)
    }
}
