#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A strict reader for JSON configuration files (IAP and OAuth user sign-in): every
/// problem is an error that names the file, the key and what is expected, and unknown keys are
/// refused so that a typo never passes silently.
public struct ConfigurationFile: Sendable {
    /// Where the configuration came from, for messages.
    public let source: String
    /// The top-level object.
    public let members: [String: JSONValue]
    /// Which kind of file it was read as, and why (set by ``readingKind(among:)``), for messages.
    public var readAs: String?

    /// Where the configuration came from and, once decided, which kind it was read as: the
    /// prefix of every message about the file.
    public var context: String { source + (readAs.map { " (read as \($0))" } ?? "") }

    /// Reads and parses a file.
    public init(contentsOf path: String) throws {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw PortalAuthError(
                .invalidConfiguration,
                "cannot read the configuration file \(path): it does not exist, or it is not readable",
                remedy: .fixConfiguration(file: path, key: nil))
        }
        try self.init(data: Array(data), source: path)
    }

    /// Parses JSON text.
    public init(data: [UInt8], source: String) throws {
        self.source = source
        // Strict JSON first: what lenient decoders let through is refused with its place.
        if let problem = StrictJSON.firstProblem(in: data) {
            throw PortalAuthError(
                .invalidConfiguration,
                "\(source) is not valid JSON (line \(problem.line), column \(problem.column)): \(problem.message)",
                remedy: .fixConfiguration(file: source, key: problem.duplicateKey))
        }
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: Data(data))
        } catch {
            throw PortalAuthError(
                .invalidConfiguration,
                "\(source) is not valid JSON (a JSON object with the documented keys)",
                remedy: .fixConfiguration(file: source, key: nil))
        }
        guard case .object(let members) = value else {
            throw PortalAuthError(
                .invalidConfiguration, "\(source) must hold a JSON object with the documented keys",
                remedy: .fixConfiguration(file: source, key: nil))
        }
        if let duplicate = DuplicateJSONKeys.first(in: data) {
            throw PortalAuthError(
                .invalidConfiguration,
                "\(source): the key \"\(duplicate)\" appears twice in one object (JSON readers would silently use "
                    + "the last)",
                remedy: .fixConfiguration(file: source, key: duplicate))
        }
        self.members = members
    }

    /// Refuses keys outside `allowed`, naming the first unknown one.
    public func requireOnlyKeys(_ allowed: Set<String>) throws {
        if let unknown = members.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw PortalAuthError(
                .invalidConfiguration,
                "\(context): unknown key \"\(unknown)\"; the keys are \(allowed.sorted().joined(separator: ", "))",
                remedy: .fixConfiguration(file: source, key: unknown))
        }
    }

    /// Whether a key is present.
    public func has(_ key: String) -> Bool { members[key] != nil }

    private func wrongType(_ key: String, _ expected: String) -> PortalAuthError {
        PortalAuthError(
            .invalidConfiguration, "\(context): \"\(key)\" must be \(expected)",
            remedy: .fixConfiguration(file: source, key: key))
    }

    /// A required string.
    public func string(_ key: String, allowEmpty: Bool = false) throws -> String {
        guard let value = members[key] else {
            throw PortalAuthError(
                .invalidConfiguration, "\(context): missing key \"\(key)\" (a string)",
                remedy: .fixConfiguration(file: source, key: key))
        }
        guard case .string(let string) = value else { throw wrongType(key, "a string") }
        guard allowEmpty || !string.isEmpty else { throw wrongType(key, "a non-empty string") }
        return string
    }

    /// An optional string.
    public func optionalString(_ key: String) throws -> String? {
        guard members[key] != nil else { return nil }
        return try string(key, allowEmpty: true)
    }

    /// A required array of strings; `nonEmpty` refuses `[]`.
    public func strings(_ key: String, nonEmpty: Bool = false) throws -> [String] {
        guard let value = members[key] else {
            throw PortalAuthError(
                .invalidConfiguration, "\(context): missing key \"\(key)\" (an array of strings)",
                remedy: .fixConfiguration(file: source, key: key))
        }
        guard case .array(let items) = value else { throw wrongType(key, "an array of strings") }
        var strings: [String] = []
        for item in items {
            guard case .string(let string) = item, !string.isEmpty else {
                throw wrongType(key, "an array of non-empty strings")
            }
            strings.append(string)
        }
        if nonEmpty, strings.isEmpty { throw wrongType(key, "a non-empty array of strings") }
        return strings
    }

    /// An optional positive integer.
    public func optionalPositiveInteger(_ key: String) throws -> Int? {
        guard let value = members[key] else { return nil }
        guard case .number(let number) = value, number == number.rounded(), number > 0, number < 1e9 else {
            throw wrongType(key, "a positive whole number")
        }
        return Int(number)
    }

    /// An optional boolean.
    public func optionalBool(_ key: String) throws -> Bool? {
        guard let value = members[key] else { return nil }
        guard case .bool(let bool) = value else { throw wrongType(key, "true or false") }
        return bool
    }

    /// A required URL with an https scheme (http only for a loopback host).
    public func httpsURL(_ key: String) throws -> URL {
        let string = try string(key)
        // In its one strict reading, as every URL that leads to a credential is read.
        let url: URL
        do {
            url = try StrictURL.parse(string).url
        } catch let error as PortalAuthError {
            throw wrongType(key, "an absolute https URL with a host (\(error.message))")
        }
        guard Self.isSecureOrLoopback(url) else {
            throw wrongType(key, "an https URL (http only for 127.0.0.1, localhost or ::1), not \(string)")
        }
        return url
    }

    /// Whether `url` is https, or http to a loopback host (127.0.0.1, localhost, ::1): the rule
    /// for every URL a configuration gives (sign-in pages, token endpoints, portals).
    public static func isSecureOrLoopback(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), let host = url.host(percentEncoded: false)?.lowercased(),
            !host.isEmpty
        else { return false }
        return scheme == "https" || (scheme == "http" && isLoopback(host: host))
    }

    /// Whether `host` is a loopback name or address (127.0.0.1, localhost, ::1, with or without brackets).
    public static func isLoopback(host: String) -> Bool {
        ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host.lowercased())
    }

    /// Whether two URLs have the same origin (scheme, host and port, default ports included).
    public static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        func port(_ url: URL) -> Int { url.port ?? (url.scheme?.lowercased() == "http" ? 80 : 443) }
        return a.scheme?.lowercased() == b.scheme?.lowercased()
            && a.host(percentEncoded: false)?.lowercased() == b.host(percentEncoded: false)?.lowercased()
            && port(a) == port(b)
    }
}

extension ConfigurationFile {
    /// Decides which of `kinds` the file is, and remembers it so that every later message says
    /// which kind the file was read as. By its `type` key when there is one; otherwise by its
    /// keys: the one kind whose keys hold all of the file's, or, when several do, the first of
    /// them (`kinds` in order of preference); when none does (an unknown or misspelt key), the
    /// kind sharing the most keys with the file, whose reader then names the unknown key.
    public mutating func readingKind(among kinds: [ConfigurationKind]) throws -> ConfigurationKind {
        if let type = try optionalString("type") {
            guard let kind = kinds.first(where: { $0.type == type }) else {
                let types = kinds.map { "\"\($0.type)\"" }.joined(separator: ", ")
                throw PortalAuthError(
                    .invalidConfiguration, "\(source): \"type\" must be one of \(types), not \"\(type)\"",
                    remedy: .fixConfiguration(file: source, key: "type"))
            }
            readAs = "\(kind.name), as its \"type\" says"
            return kind
        }
        let present = Set(members.keys)
        if let kind = kinds.first(where: { present.isSubset(of: $0.keys) }) {
            readAs = "\(kind.name): it has no \"type\" and its keys are those of one"
            return kind
        }
        let closest = kinds.enumerated().max { a, b in
            let (countA, countB) = (
                a.element.keys.intersection(present).count, b.element.keys.intersection(present).count
            )
            return countA != countB ? countA < countB : a.offset > b.offset
        }!.element
        readAs = "\(closest.name): it has no \"type\" and most of its keys are those of one"
        return closest
    }
}
