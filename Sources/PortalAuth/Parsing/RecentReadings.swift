/// The last few readings of URLs' texts (a URL's parts, its normalised form), kept by the text.
///
/// One request asks about its URL a dozen times: the store's candidate contexts, each stored
/// credential's `applies(to:)`, the scope decision, the request loop's challenge state; and a URL
/// that was normalised is normalised again by the next layer. Reading a URL strictly was the
/// largest part of `serve`'s own time per request (a profile of 400 proxied queries: 11% of all
/// samples, 0.1–0.2 ms a request). A reading is a pure function of the URL's text, so an answer
/// kept for the same text is exactly what reading it again gives; only readings that succeeded
/// are kept, and only the last ``capacity``. Texts are compared byte for byte (not as Swift
/// compares strings, which takes canonically equivalent text as equal). A lookup compares the
/// text with at most ``capacity`` kept ones, each compare linear in its length (a URL is at most
/// 16 KiB).
final class RecentReadings<Value: Sendable>: Sendable {
    /// How many readings are kept.
    let capacity: Int
    private let entries: Locked<[(text: String, value: Value)]>

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        entries = Locked([])
    }

    /// The reading of `text`: a kept one, or `read(text)` (kept when it succeeds).
    func parts(of text: String, reading read: (String) throws -> Value) throws -> Value {
        if let kept = kept(text) { return kept }
        let value = try read(text)
        keep(text, value)
        return value
    }

    /// The reading kept for `text`, if any.
    func kept(_ text: String) -> Value? {
        entries.withLock { entries in entries.last(where: { ASCIIText.sameBytes($0.text, text) })?.value }
    }

    /// Keeps `value` as the reading of `text` (the oldest kept one makes room).
    func keep(_ text: String, _ value: Value) {
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeFirst(entries.count - capacity + 1) }
            entries.append((text, value))
        }
    }

    /// How many readings are kept now.
    var count: Int { entries.withLock { $0.count } }
}

/// The readings of URLs' parts (``ServerContext/parts(of:)``).
typealias RecentURLParts = RecentReadings<ServerContext.Parts>
