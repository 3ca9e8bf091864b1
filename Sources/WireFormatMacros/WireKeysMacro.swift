import SwiftCompilerPlugin
import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@WireKeys`: the `CodingKeys` of a wire type, one case a stored property, whose raw value
/// is the property's name in snake_case (`adID` is `ad_id`, `formatIDs` is `format_ids`) or the
/// name the property's `@WireName` gives. Spelled when the code compiles, so encoding and
/// decoding pay nothing for it.
public struct WireKeysMacro: MemberMacro {
    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        var cases: [String] = []
        for (property, wire) in storedProperties(of: declaration, in: context, reading: wireName) {
            cases.append("case \(property.name) = \"\(wire ?? SnakeCase.spell(property.name.trimmingBackticks))\"")
        }
        guard !cases.isEmpty else {
            context.diagnose(
                Diagnostic(node: Syntax(node), message: WireKeysMessage("@WireKeys needs stored properties")))
            return []
        }
        // As visible as the type, so that a strict reader elsewhere can list the keys it accepts.
        let access = declaration.modifiers.contains { $0.name.text == "public" } ? "public " : ""
        return [
            DeclSyntax(
                stringLiteral: "\(access)enum CodingKeys: String, CodingKey, CaseIterable {\n"
                    + cases.joined(separator: "\n") + "\n}")
        ]
    }

    /// One stored property of a wire type: its name and its binding.
    struct StoredProperty {
        let name: String
        let binding: PatternBindingSyntax
    }

    /// Each stored property coding sees, in order, with what `attribute` reads off its
    /// declaration. What is malformed is diagnosed where it is, in order: an attribute that
    /// `attribute` refuses (the property is left out), and a member inside `#if` (it might or
    /// might not be coded: say so rather than guess) unless another expansion of the same
    /// declaration does (`diagnosingConditionals: false`).
    static func storedProperties<T>(
        of declaration: some DeclGroupSyntax, in context: some MacroExpansionContext,
        diagnosingConditionals: Bool = true,
        reading attribute: (VariableDeclSyntax) throws(WireKeysMessage) -> T
    ) -> [(property: StoredProperty, attribute: T)] {
        var found: [(property: StoredProperty, attribute: T)] = []
        for member in declaration.memberBlock.members {
            if member.decl.is(IfConfigDeclSyntax.self) {
                guard diagnosingConditionals else { continue }
                context.diagnose(
                    Diagnostic(
                        node: Syntax(member.decl),
                        message: WireKeysMessage("@WireKeys cannot see properties inside #if; move them out")))
                continue
            }
            guard let variable = member.decl.as(VariableDeclSyntax.self), isStored(variable) else { continue }
            let read: T
            do {
                read = try attribute(variable)
            } catch {
                context.diagnose(Diagnostic(node: Syntax(variable), message: error))
                continue
            }
            for binding in variable.bindings {
                guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.trimmedDescription
                else { continue }
                found.append((StoredProperty(name: name, binding: binding), read))
            }
        }
        return found
    }

    /// An instance property with storage that coding sees: not static or lazy, and with no
    /// accessors but observers.
    static func isStored(_ variable: VariableDeclSyntax) -> Bool {
        if variable.modifiers.contains(where: { ["static", "class", "lazy"].contains($0.name.text) }) { return false }
        return variable.bindings.allSatisfy { binding in
            guard let accessors = binding.accessorBlock?.accessors else { return true }
            guard case .accessors(let list) = accessors else { return false }
            return list.allSatisfy { ["willSet", "didSet"].contains($0.accessorSpecifier.text) }
        }
    }

    /// The name a property's `@WireName("...")` gives it, if it has one: a plain string literal.
    /// (The compiler refuses it on a declaration of several properties.)
    static func wireName(of variable: VariableDeclSyntax) throws(WireKeysMessage) -> String? {
        for attribute in variable.attributes {
            guard let attribute = attribute.as(AttributeSyntax.self),
                attribute.attributeName.trimmedDescription.split(separator: ".").last == "WireName"
            else { continue }
            guard let argument = attribute.arguments?.as(LabeledExprListSyntax.self)?.first,
                let literal = argument.expression.as(StringLiteralExprSyntax.self), literal.openingPounds == nil,
                literal.segments.count == 1, let text = literal.segments.first?.as(StringSegmentSyntax.self)
            else {
                throw WireKeysMessage("@WireName takes a plain string literal")
            }
            return text.content.text
        }
        return nil
    }
}

/// A mark on a property that another macro reads and that expands to nothing itself:
/// `@WireName("uptime_s")` (read by `@WireKeys`), `@Bounds(1...60_000)` (read by `@Settings`).
public struct MarkerMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] { [] }
}

struct WireKeysMessage: DiagnosticMessage, Error {
    let message: String
    init(_ message: String) { self.message = message }
    var diagnosticID: MessageID { MessageID(domain: "WireKeys", id: "keys") }
    var severity: DiagnosticSeverity { .error }
}

extension String {
    fileprivate var trimmingBackticks: String { filter { $0 != "`" } }
}

@main
struct WireFormatMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [
        WireKeysMacro.self, MarkerMacro.self, SettingsMacro.self, MemberwiseInitMacro.self,
    ]
}
