import FoundationEssentials
import SharedTypes

/// A request body the CLI builds, as the daemon's wire format writes JSON.
func jsonBody(_ value: JSONValue) throws -> Data {
    try WireFormat.encoder().encode(value)
}

/// `value` pretty-printed with sorted keys, for `--json` output the CLI composes itself.
func printJSON(_ value: JSONValue) throws {
    let encoder = WireFormat.encoder()
    encoder.outputFormatting.insert(.prettyPrinted)
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}
