/// How an ad request may be served, as Google defines the modes: personalised, non-personalised
/// (contextual), or limited (where the GDPR applies and neither has its basis: no identifiers,
/// no device storage).
public enum ServingMode: String, Sendable, CaseIterable, Codable {
    case personalized
    case nonPersonalized = "non_personalized"
    case limited
}
