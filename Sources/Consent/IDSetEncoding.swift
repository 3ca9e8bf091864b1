/// How the IAB's encoders write an id set, bit by bit: used only to tell which of two layouts
/// a TCF Canada section was written in (its vendor fields changed from fixed-width to
/// Fibonacci-coded ids), by checking which decoding the same encoder would have produced.
enum IDSetEncoding {
    /// The id sets' two layouts: ids in 16 bits each, or Fibonacci-coded offsets.
    enum Layout {
        case fixed, fibonacci
    }

    /// The optimized form: the largest id (16 bits), whether a range list follows, then the
    /// list or a bit per id, whichever is not longer.
    static func optimized(_ ids: [Int], _ layout: Layout) -> [Bool] {
        let maxID = ids.max() ?? 0
        let list = ranges(ids, layout)
        let useList = list.count <= maxID
        let present = Set(ids)
        return int(maxID, 16) + [useList] + (useList ? list : (0..<maxID).map { present.contains($0 + 1) })
    }

    /// A count (12 bits), then each run of ids: alone, or first and last of two or more.
    static func ranges(_ ids: [Int], _ layout: Layout) -> [Bool] {
        let runs = runs(of: ids)
        var bits = int(runs.count, 12)
        var last = 0
        for run in runs {
            bits.append(run.count > 1)
            switch layout {
            case .fixed:
                bits += int(run.lowerBound, 16)
                if run.count > 1 { bits += int(run.upperBound, 16) }
            case .fibonacci:
                bits += fibonacci(run.lowerBound - last)
                if run.count > 1 { bits += fibonacci(run.upperBound - run.lowerBound) }
            }
            last = run.upperBound
        }
        return bits
    }

    /// Publisher restrictions: a count (12 bits), then purpose (6), type (2) and the vendors,
    /// as a plain range list (fixed) or the optimized form (Fibonacci).
    static func restrictions(_ restrictions: [TCString.PublisherRestriction], _ layout: Layout) -> [Bool] {
        var bits = int(restrictions.count, 12)
        for restriction in restrictions {
            bits += int(restriction.purpose, 6) + int(restriction.kind.rawValue, 2)
            bits += layout == .fixed ? ranges(restriction.vendors, .fixed) : optimized(restriction.vendors, .fibonacci)
        }
        return bits
    }

    static func int(_ value: Int, _ width: Int) -> [Bool] {
        (0..<width).reversed().map { value >> $0 & 1 == 1 }
    }

    /// Zeckendorf bits over 1, 2, 3, 5 ..., then the closing 1.
    static func fibonacci(_ value: Int) -> [Bool] {
        var weights = [1, 2]
        while let last = weights.last, last <= value { weights.append(last + weights[weights.count - 2]) }
        var bits = [Bool](repeating: false, count: weights.count)
        var rest = value
        for index in weights.indices.reversed() where weights[index] <= rest {
            bits[index] = true
            rest -= weights[index]
        }
        while bits.last == false { bits.removeLast() }
        return bits + [true]
    }

    /// Sorted, de-duplicated ids as runs of consecutive ones.
    static func runs(of ids: [Int]) -> [ClosedRange<Int>] {
        var runs: [ClosedRange<Int>] = []
        for id in Set(ids).sorted() {
            if let last = runs.last, last.upperBound + 1 == id {
                runs[runs.count - 1] = last.lowerBound...id
            } else {
                runs.append(id...id)
            }
        }
        return runs
    }
}
