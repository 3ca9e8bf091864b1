extension StringProtocol {
    /// The text without the whitespace and newlines that start or end it (Unicode's definition,
    /// as `Character.isWhitespace` gives it): Foundation's trimming, without Foundation.
    public var trimmingWhitespace: String {
        trimming { $0.isWhitespace }
    }

    /// The text without the characters that start or end it and match `drop` (Foundation's
    /// `trimmingCharacters(in:)` for a set of characters).
    public func trimming(while drop: (Character) -> Bool) -> String {
        guard let first = firstIndex(where: { !drop($0) }), let last = lastIndex(where: { !drop($0) }) else {
            return ""
        }
        return String(self[first...last])
    }

    /// The text padded with spaces at its end to `width` characters; longer text is kept whole.
    public func padded(to width: Int) -> String {
        String(self) + String(repeating: " ", count: Swift.max(0, width - count))
    }

    /// The text whole when it is at most `limit` characters, else its first `limit - 1` and "…".
    public func clipped(to limit: Int) -> String {
        count > limit ? String(prefix(limit - 1)) + "…" : String(self)
    }
}

extension Double {
    /// The number with exactly `places` digits after the point, for a person to read: the value
    /// times 10^places rounded half away from zero. printf's `%.Nf` rounds the exact binary value
    /// instead, so the two may differ by one in the last digit (2.675 is 2.67499999... in binary:
    /// printf writes 2.67, this 2.68). Not finite, or 2^53 or more once scaled: the shortest
    /// description instead.
    public func fixed(_ places: Int) -> String {
        let scale = (0..<places).reduce(1.0) { product, _ in product * 10 }
        let scaled = (abs(self) * scale).rounded()
        guard isFinite, scaled < 9_007_199_254_740_992 else { return description }
        let units = Int64(scaled)
        let whole = units / Int64(scale)
        let fraction = String(units % Int64(scale))
        let sign = self < 0 && units != 0 ? "-" : ""
        guard places > 0 else { return sign + String(whole) }
        return sign + String(whole) + "." + String(repeating: "0", count: places - fraction.count) + fraction
    }
}
