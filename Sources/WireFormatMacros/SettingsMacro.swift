import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@Settings`: a configuration section declared once. Its `CodingKeys` are `@WireKeys`'; its
/// strict `init(from:)` is generated from the stored properties: each one's default is its
/// initializer (an optional's is nil; a property with neither is required), each `@Bounds`
/// is checked, unknown keys are refused, and every error names its key path. A cross-key rule
/// goes in the type's `validate(at:)`, which runs once the keys are read.
public struct SettingsMacro: MemberMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        try WireKeysMacro.expansion(of: node, providingMembersOf: declaration, conformingTo: protocols, in: context)
    }

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        var lines: [String] = []
        // Read last: a required key that fails ends the reading, and what was read before it
        // has had its failures recorded.
        var required: [String] = []
        // The member expansion (`@WireKeys`') diagnoses `#if`; this one, malformed `@Bounds`.
        let properties = WireKeysMacro.storedProperties(
            of: declaration, in: context, diagnosingConditionals: false, reading: boundsArguments)
        for (index, (property, bounds)) in properties.enumerated() {
            let name = property.name
            if let initial = property.binding.initializer?.value.trimmedDescription {
                lines.append("self.\(name) = try container.setting(.\(name), default: \(initial)\(bounds))")
            } else if let type = typeAnnotation(of: index, in: properties.map(\.property)), isOptional(type) {
                lines.append("self.\(name) = try container.setting(.\(name), default: nil\(bounds))")
            } else {
                required.append("self.\(name) = try container.required(.\(name)\(bounds))")
            }
        }
        let access =
            declaration.modifiers.first { ["public", "package", "open"].contains($0.name.text) }
            .map { $0.name.text == "open" ? "public " : "\($0.name.text) " } ?? ""
        let body = """
            extension \(type.trimmedDescription): StrictSettings {
                \(access)init(from decoder: any Decoder) throws {
                    try decoder.rejectUnknownKeys(CodingKeys.self)
                    let container = try decoder.container(keyedBy: CodingKeys.self)
                    let failuresBefore = StrictJSON.FailureLog.current?.count ?? 0
                    \((lines + required).joined(separator: "\n"))
                    // A rule across keys is judged on what was written, not on defaults that stand in for errors.
                    if StrictJSON.FailureLog.current?.count ?? 0 == failuresBefore {
                        try validate(at: decoder.codingPath)
                    }
                }
            }
            """
        guard let extensionDecl = DeclSyntax(stringLiteral: body).as(ExtensionDeclSyntax.self) else { return [] }
        return [extensionDecl]
    }

    /// `, in: RANGE` (and `, as: "WHAT"`) from a property's `@Bounds(RANGE)` or
    /// `@Bounds(RANGE, "WHAT")`; empty without one.
    static func boundsArguments(of variable: VariableDeclSyntax) throws(WireKeysMessage) -> String {
        if variable.bindingSpecifier.tokenKind == .keyword(.let) {
            throw WireKeysMessage("a @Settings property is a var: the decoder sets it")
        }
        for attribute in variable.attributes {
            guard let attribute = attribute.as(AttributeSyntax.self),
                attribute.attributeName.trimmedDescription.split(separator: ".").last == "Bounds"
            else { continue }
            guard let arguments = attribute.arguments?.as(LabeledExprListSyntax.self), let range = arguments.first,
                arguments.count <= 2
            else {
                throw WireKeysMessage("@Bounds takes a closed range and, optionally, what the value is")
            }
            var text = ", in: \(range.expression.trimmedDescription)"
            if arguments.count == 2, let what = arguments.last {
                text += ", as: \(what.expression.trimmedDescription)"
            }
            return text
        }
        return ""
    }

    static func isOptional(_ type: TypeSyntax) -> Bool {
        if type.is(OptionalTypeSyntax.self) || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return true }
        if let member = type.as(MemberTypeSyntax.self) { return member.name.text == "Optional" }
        return type.as(IdentifierTypeSyntax.self)?.name.text == "Optional"
    }

    /// A binding's type: its own annotation, or, in `var a, b: Int?`, the next one's.
    static func typeAnnotation(of index: Int, in properties: [WireKeysMacro.StoredProperty]) -> TypeSyntax? {
        for property in properties[index...] {
            if let type = property.binding.typeAnnotation?.type { return type }
            if property.binding.initializer != nil || property.binding.trailingComma == nil { return nil }
        }
        return nil
    }
}
