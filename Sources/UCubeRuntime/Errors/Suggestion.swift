/// The names nearest to a mistyped word (optimal string alignment distance: one edit per insertion, deletion,
/// substitution or swap of two neighbours, so `pya` is one edit from `pay`).
package enum Suggestion {
    package static func nearest(to word: String, in names: [String]) -> [String] {
        let scored = names.map { ($0, distance(word, $0)) }
        guard let best = scored.map(\.1).min() else { return [] }
        // Close enough to be a typo: at most 2 edits, and fewer than half the word.
        guard best <= min(2, max(1, word.count / 2)) else {
            return names.filter { $0.hasPrefix(word) && word.count >= 2 }.prefix(3).map { $0 }
        }
        return scored.filter { $0.1 == best }.map(\.0)
    }

    package static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }
}
