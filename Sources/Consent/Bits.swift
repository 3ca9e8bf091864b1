/// The bits of one base64url segment (the web-safe alphabet the IAB strings use, six bits a
/// character, most significant first), read front to back. Every read that would pass the end
/// throws, naming where it stopped and how far it needed to go.
struct Bits {
    private let bits: [Bool]
    private(set) var position = 0
    /// How many more ids the ranges of this segment may name: a range costs a few bits and
    /// may name 65,535 ids, so without a bound a 64 KiB string could name billions. Three whole
    /// vendor sets fit (consents, legitimate interests, restrictions).
    private(set) var rangeIDsLeft = 3 * 65_536

    /// `text` in the base64url alphabet; '=' padding at its end is tolerated (some encoders
    /// write it), anything else outside the alphabet is refused.
    init(base64url text: Substring) throws(BitsError) {
        let trimmed = text.reversed().drop { $0 == "=" }.reversed()
        guard !trimmed.isEmpty else { throw BitsError(reason: "is empty") }
        var bits: [Bool] = []
        bits.reserveCapacity(trimmed.count * 6)
        for (offset, character) in trimmed.enumerated() {
            guard let value = Self.value(of: character) else {
                throw BitsError(reason: "character \(offset + 1) is not base64url")
            }
            for shift in stride(from: 5, through: 0, by: -1) { bits.append(value >> shift & 1 == 1) }
        }
        self.bits = bits
    }

    private static func value(of character: Character) -> UInt8? {
        guard let ascii = character.asciiValue else { return nil }
        switch ascii {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return ascii - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return ascii - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return ascii - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): return 62
        case UInt8(ascii: "_"): return 63
        default: return nil
        }
    }

    var count: Int { bits.count }
    var remaining: Int { bits.count - position }

    /// Fails unless `width` more bits are there.
    func require(_ width: Int, for field: String) throws(BitsError) {
        guard width <= remaining else {
            throw BitsError(reason: "ends at bit \(bits.count), needs \(position + width) for \(field)")
        }
    }

    /// An unsigned integer of `width` bits (at most 62).
    mutating func int(_ width: Int, _ field: String) throws(BitsError) -> Int {
        try require(width, for: field)
        var value = 0
        for _ in 0..<width {
            value = value << 1 | (bits[position] ? 1 : 0)
            position += 1
        }
        return value
    }

    mutating func bool(_ field: String) throws(BitsError) -> Bool {
        try int(1, field) == 1
    }

    /// A 36-bit count of deciseconds since 1970, as epoch milliseconds.
    mutating func deciseconds(_ field: String) throws(BitsError) -> Int64 {
        Int64(try int(36, field)) * 100
    }

    /// Two letters, six bits each, 0 = "A" (a language or country code).
    mutating func letters(_ field: String) throws(BitsError) -> String {
        let first = try int(6, field)
        let second = try int(6, field)
        guard first < 26, second < 26 else { throw BitsError(reason: "\(field) is not two letters A-Z") }
        return String(
            decoding: [UInt8(ascii: "A") + UInt8(first), UInt8(ascii: "A") + UInt8(second)], as: UTF8.self)
    }

    /// The 1-based ids of the set bits among the next `width`.
    mutating func bitfield(_ width: Int, _ field: String) throws(BitsError) -> [Int] {
        try require(width, for: field)
        var ids: [Int] = []
        for id in stride(from: 1, through: width, by: 1) {
            if bits[position] { ids.append(id) }
            position += 1
        }
        return ids
    }

    /// `count` integers of `width` bits each (the US sections' fixed lists).
    mutating func list(_ count: Int, of width: Int, _ field: String) throws(BitsError) -> [Int] {
        try require(count * width, for: field)
        var values: [Int] = []
        for _ in 0..<count { values.append(try int(width, field)) }
        return values
    }

    /// A Fibonacci-coded positive integer (Zeckendorf bits from 1, 2, 3, 5 ..., ended by the
    /// second of two ones in a row): how GPP numbers its section ids.
    mutating func fibonacci(_ field: String) throws(BitsError) -> Int {
        var (value, previousSet) = (0, false)
        var (current, next) = (1, 2)
        while true {
            let set = try bool(field)
            if set, previousSet { return value }
            if set { value += current }
            previousSet = set
            (current, next) = (next, current + next)
            guard current < 1 << 30 else { throw BitsError(reason: "\(field) is out of range") }
        }
    }

    /// A vendor id set as TCF encodes it: the largest id (16 bits), then either a bit per id or
    /// a list of single ids and ranges (each end at or after its start, none past the largest).
    mutating func vendorSet(_ field: String) throws(BitsError) -> [Int] {
        let maxID = try int(16, field)
        guard try bool(field) else { return try bitfield(maxID, field) }
        return try idRanges(field, maxID: maxID)
    }

    /// A count (12 bits), then that many entries: a single id (16 bits) or a range (two).
    mutating func idRanges(_ field: String, maxID: Int? = nil) throws(BitsError) -> [Int] {
        var ids = Set<Int>()
        for _ in 0..<(try int(12, field)) {
            let isRange = try bool(field)
            let start = try int(16, field)
            let end = isRange ? try int(16, field) : start
            guard start >= 1 else { throw BitsError(reason: "\(field) has vendor id 0") }
            guard end >= start else {
                throw BitsError(reason: "\(field) has a range ending at \(end) before its start \(start)")
            }
            if let maxID, end > maxID {
                throw BitsError(reason: "\(field) has vendor id \(end), past its largest \(maxID)")
            }
            try spend(end - start + 1, field)
            ids.formUnion(start...end)
        }
        return ids.sorted()
    }

    /// Charges `count` ids named by a range to this segment's bound.
    mutating func spend(_ count: Int, _ field: String) throws(BitsError) {
        rangeIDsLeft -= count
        guard rangeIDsLeft >= 0 else {
            throw BitsError(reason: "\(field): its ranges name more than \(3 * 65_536) ids in the segment")
        }
    }
}

extension Bits {
    /// The `count` bits from `start`; nil past the end.
    func bits(from start: Int, count: Int) -> ArraySlice<Bool>? {
        start + count <= self.count ? bits[start..<start + count] : nil
    }

    /// An id set in the optimized form with Fibonacci-coded ranges (GPP's `OptimizedRange`):
    /// the largest id (16 bits), then a range list of offsets or a bit per id.
    mutating func optimizedFibonacci(_ field: String) throws(BitsError) -> [Int] {
        let maxID = try int(16, field)
        guard try bool(field) else { return try bitfield(maxID, field) }
        return try fibonacciRange(field)
    }

    /// Reads a value whose layout may be either of `IDSetEncoding`'s: the one whose encoding
    /// of the value read is exactly the bits it read (as the IAB's encoder would have written
    /// them), Fibonacci first; when neither is, Fibonacci, its errors thrown.
    mutating func eitherLayout<Value>(
        _ read: (inout Bits, IDSetEncoding.Layout) throws(BitsError) -> Value,
        encoded: (Value, IDSetEncoding.Layout) -> [Bool]
    ) throws(BitsError) -> Value {
        let start = position
        for layout in [IDSetEncoding.Layout.fibonacci, .fixed] {
            var attempt = self
            guard let value = try? read(&attempt, layout) else { continue }
            let written = encoded(value, layout)
            if bits(from: start, count: written.count).map(Array.init) == written {
                self = attempt
                return value
            }
        }
        return try read(&self, .fibonacci)
    }
}
