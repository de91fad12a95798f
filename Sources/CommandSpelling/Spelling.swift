/// The nearest valid word to a misspelt one, shared by both programs so that the small
/// `portal-auth` (a misspelt command) and `portal-auth-full` (`UsageMistakes`: commands and
/// options) suggest the same word. Standard library only: the small program carries no Foundation.
public enum Spelling {
    /// The candidate nearest to `word` by edit distance (a swap of two letters counts one), when
    /// it is near enough: within `maxDistance`, or by default a third of the word (at least 1, at
    /// most 3); or the only candidate `word` begins (at least 3 letters). Ties go to the first in
    /// alphabetical order. Leading dashes (`--portl`) are not counted in the word's length.
    public static func nearest(_ word: String, among candidates: [String], maxDistance: Int?) -> String? {
        let core = word.drop { $0 == "-" }
        let limit = maxDistance ?? min(3, max(1, core.count / 3))
        let scored = candidates.sorted().map { ($0, editDistance(word.lowercased(), $0)) }
        if let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= limit { return best.0 }
        let prefixed = candidates.filter { core.count >= 3 && $0.drop { $0 == "-" }.hasPrefix(core) }
        return prefixed.count == 1 ? prefixed[0] : nil
    }

    /// The optimal string alignment distance over the first 64 Unicode scalars of each:
    /// insertions, deletions, substitutions and swaps of two neighbours each count one.
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars.prefix(64)), b = Array(b.unicodeScalars.prefix(64))
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var best = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    best = min(best, table[i - 2][j - 2] + 1)
                }
                table[i][j] = best
            }
        }
        return table[a.count][b.count]
    }
}
