import SharedTypes

/// One XML element, by local name (no namespace prefix), with its attributes, child elements and own text.
/// A small Sendable tree that libxml2's reader fills (`VASTXMLTreeBuilder`), so reading VAST never holds parser objects.
struct VASTXMLElement: Sendable, Equatable {
    var name: String
    var attributes: [String: String]
    var children: [VASTXMLElement]
    /// The element's own character data and CDATA, in order, untrimmed.
    var text: String

    /// The first child element with this local name.
    func child(_ name: String) -> VASTXMLElement? {
        children.first { $0.name == name }
    }

    /// Every child element with this local name, in document order.
    func children(_ name: String) -> [VASTXMLElement] {
        children.filter { $0.name == name }
    }

    /// The element's text without the whitespace and newlines around it.
    var trimmedText: String {
        text.trimmingWhitespace
    }

    /// An attribute by local name; an unprefixed attribute wins over a prefixed one of the same local name.
    func attribute(_ name: String) -> String? {
        attributes[name]
    }
}
