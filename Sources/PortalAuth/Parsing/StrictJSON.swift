/// A strict check of JSON text (RFC 8259) before it is decoded, for configuration files: what
/// lenient readers let through — trailing commas, comments, duplicate keys, single quotes,
/// bare words, NaN — is refused with its line and column. JSONDecoder does not name the place
/// of an error, and which of these it accepts depends on the Foundation in use.
///
/// One pass over the bytes with an explicit stack (no recursion; nesting deeper than
/// ``maxDepth`` is refused), so that any input ends in an answer: the fuzz target
/// ConfigurationFile feeds it arbitrary bytes.
package enum StrictJSON {
    /// What is wrong and where (1-based line, and column in bytes).
    package struct Problem: Error, Equatable, Sendable {
        package var message: String
        package var line: Int
        package var column: Int
        /// The key that appears twice, for that problem.
        package var duplicateKey: String?
    }

    /// Nesting deeper than this is refused.
    package static let maxDepth = 512

    /// The first problem of `bytes`, or nil when they are one strict JSON value.
    package static func firstProblem(in bytes: [UInt8]) -> Problem? {
        var scanner = StrictJSONScanner(bytes)
        return scanner.firstProblem()
    }
}
