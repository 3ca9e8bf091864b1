import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@MemberwiseInit`: the initializer Swift synthesizes for a struct, one parameter a stored
/// property in order, but at the type's own access level: Swift's is internal, so a public
/// type built in other modules would otherwise spell it by hand. As Swift's: a property's
/// initial value is its parameter's default (an optional `var`'s is nil), a `let` with a value
/// is no parameter, and a closure is `@escaping`.
public struct MemberwiseInitMacro: MemberMacro {
    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        let properties = WireKeysMacro.storedProperties(
            of: declaration, in: context, diagnosingConditionals: false
        ) { variable throws(WireKeysMessage) in variable.bindingSpecifier.tokenKind == .keyword(.let) }
        var parameters: [String] = []
        var assignments: [String] = []
        for (index, (property, isLet)) in properties.enumerated() {
            let initial = property.binding.initializer?.value.trimmedDescription
            if isLet && initial != nil { continue }
            guard let type = SettingsMacro.typeAnnotation(of: index, in: properties.map(\.property)) else {
                context.diagnose(
                    Diagnostic(
                        node: Syntax(property.binding),
                        message: WireKeysMessage("@MemberwiseInit needs the type of `\(property.name)` written")))
                return []
            }
            var parameter = "\(property.name): \(escaping(type))\(type.trimmedDescription)"
            if let initial {
                parameter += " = \(initial)"
            } else if !isLet && SettingsMacro.isOptional(type) {
                parameter += " = nil"
            }
            parameters.append(parameter)
            assignments.append("self.\(property.name) = \(property.name)")
        }
        let access =
            declaration.modifiers.first { ["public", "package", "open"].contains($0.name.text) }
            .map { $0.name.text == "open" ? "public " : "\($0.name.text) " } ?? ""
        return [
            DeclSyntax(
                stringLiteral: "\(access)init(\(parameters.joined(separator: ", "))) {\n"
                    + assignments.joined(separator: "\n") + "\n}")
        ]
    }

    /// `@escaping ` for a closure type, as a parameter that is stored must be.
    static func escaping(_ type: TypeSyntax) -> String {
        if type.is(FunctionTypeSyntax.self) { return "@escaping " }
        if let attributed = type.as(AttributedTypeSyntax.self), attributed.baseType.is(FunctionTypeSyntax.self) {
            return "@escaping "
        }
        return ""
    }
}
