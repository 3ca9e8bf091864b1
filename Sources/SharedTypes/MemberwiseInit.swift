/// Gives a struct the memberwise initializer Swift synthesizes, at the struct's own access
/// level (Swift's is internal): a public type built in other modules declares its properties
/// once instead of writing them again as parameters and assignments.
@attached(member, names: named(init))
public macro MemberwiseInit() = #externalMacro(module: "WireFormatMacros", type: "MemberwiseInitMacro")
