/// A misbehaviour to inject: the emulator answers matching requests wrongly on purpose.
public struct Fault: Codable, Sendable, Equatable {
    /// What goes wrong.
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// HTTP 500 with a small HTML body.
        case http500
        /// HTTP 200, `application/json`, but a truncated, unparsable body.
        case malformedJSON
        /// HTTP 200 with an HTML page instead of JSON.
        case html
        /// The connection is closed (TCP reset) without an answer.
        case connectionReset
        /// The request is delayed by `milliseconds` and then answered normally.
        case latency
        /// Every request carrying a token gets 498, however fresh the token.
        case rejectAllTokens
        /// A token answer whose lifetime is the word "soon": `"expires":"soon"` (generateToken) or
        /// `"expires_in":"soon"` (`oauth2/token`), as no server should send.
        case lifetimeNotANumber
        /// A token answer whose lifetime is a number no server means: `"expires":1e308`
        /// (generateToken) or `"expires_in":1e308` (`oauth2/token`).
        case lifetimeOutOfRange
        /// HTTP 302 to `location`: an in-scope URL that sends its client to another host (item data
        /// kept in blob storage), to see what a client that follows it carries there.
        case redirect
        /// HTTP 200, `text/html`, with `body` as it is: a page from an in-scope server (a hostile one
        /// with a script, for what a browser does with it through serve).
        case page
    }

    /// What goes wrong.
    public var kind: Kind
    /// Only requests whose path contains this string; nil for every request.
    public var pathContains: String?
    /// How many times the fault fires; nil for forever.
    public var count: Int?
    /// The delay for `latency`, in milliseconds.
    public var milliseconds: Int?
    /// The `Location` of `redirect` (an absolute URL).
    public var location: String?
    /// The HTML of `page`.
    public var body: String?

    /// Creates a fault rule.
    public init(
        kind: Kind, pathContains: String? = nil, count: Int? = nil, milliseconds: Int? = nil, location: String? = nil,
        body: String? = nil
    ) {
        self.kind = kind
        self.pathContains = pathContains
        self.count = count
        self.milliseconds = milliseconds
        self.location = location
        self.body = body
    }
}
