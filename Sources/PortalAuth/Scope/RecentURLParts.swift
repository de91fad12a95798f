/// The parts of the last few URLs read strictly (``ServerContext/parts(of:)``).
///
/// One request asks about its URL a dozen times: the store's candidate contexts, each stored
/// credential's `applies(to:)`, the scope decision, the request loop's challenge state. Reading a
/// URL strictly was the largest part of `serve`'s own time per request (a profile of 400 proxied
/// queries: 11% of all samples, 0.1–0.2 ms a request). The reading is a pure function of the
/// URL's text, so an answer kept for the same text is exactly what reading it again gives; only
/// readings that succeeded are kept, and only the last ``capacity``. Texts are compared byte for
/// byte (not as Swift compares strings, which takes canonically equivalent text as equal). A lookup compares the text
/// with at most ``capacity`` kept ones, each compare linear in its length (a URL is at most 16 KiB).
final class RecentURLParts: Sendable {
    /// The one every reading of a URL's parts goes through.
    static let shared = RecentURLParts(capacity: 8)

    /// How many readings are kept.
    let capacity: Int
    private let entries: Locked<[(text: String, parts: ServerContext.Parts)]>

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        entries = Locked([])
    }

    /// The parts of `text`: a kept reading, or `read(text)` (kept when it succeeds).
    func parts(
        of text: String, reading read: (String) throws -> ServerContext.Parts
    ) throws -> ServerContext.Parts {
        if let kept = entries.withLock({ entries in
            entries.last(where: { $0.text.utf8.elementsEqual(text.utf8) })?.parts
        }) {
            return kept
        }
        let parts = try read(text)
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeFirst(entries.count - capacity + 1) }
            entries.append((text, parts))
        }
        return parts
    }

    /// How many readings are kept now.
    var count: Int { entries.withLock { $0.count } }
}
