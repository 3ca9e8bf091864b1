import SharedTypes

/// `GET` and `PUT /v1/privacy`.
@WireKeys
struct PrivacyAnswer: Encodable {
    /// Null until the platform sets one: no consent.
    @Nullable var privacy: PrivacyState?
}
