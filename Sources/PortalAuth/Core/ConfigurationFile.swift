#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A strict reader for JSON configuration files (`portal-auth login --config FILE`): every
/// problem is an error that names the file, the key and what is expected, and unknown keys are
/// refused so that a typo never passes silently.
public struct ConfigurationFile: Sendable {
    /// Where the configuration came from, for messages.
    public let source: String
    /// The top-level object.
    public let members: [String: JSONValue]

    /// Reads and parses a file.
    public init(contentsOf path: String) throws {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw PortalAuthError(
                .invalidConfiguration,
                "cannot read the configuration file \(path): check that it exists and is readable",
                remedy: .fixConfiguration(file: path, key: nil))
        }
        try self.init(data: Array(data), source: path)
    }

    /// Parses JSON text.
    public init(data: [UInt8], source: String) throws {
        self.source = source
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: Data(data))
        } catch {
            throw PortalAuthError(
                .invalidConfiguration,
                "\(source) is not valid JSON: fix the syntax (a JSON object with the documented keys)",
                remedy: .fixConfiguration(file: source, key: nil))
        }
        guard case .object(let members) = value else {
            throw PortalAuthError(
                .invalidConfiguration, "\(source) must hold a JSON object with the documented keys",
                remedy: .fixConfiguration(file: source, key: nil))
        }
        self.members = members
    }

    /// Refuses keys outside `allowed`, naming the first unknown one.
    public func requireOnlyKeys(_ allowed: Set<String>) throws {
        if let unknown = members.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw PortalAuthError(
                .invalidConfiguration,
                "\(source): unknown key \"\(unknown)\"; the keys are \(allowed.sorted().joined(separator: ", "))",
                remedy: .fixConfiguration(file: source, key: unknown))
        }
    }

    /// Whether a key is present.
    public func has(_ key: String) -> Bool { members[key] != nil }

    private func wrongType(_ key: String, _ expected: String) -> PortalAuthError {
        PortalAuthError(
            .invalidConfiguration, "\(source): \"\(key)\" must be \(expected)",
            remedy: .fixConfiguration(file: source, key: key))
    }

    /// A required string.
    public func string(_ key: String, allowEmpty: Bool = false) throws -> String {
        guard let value = members[key] else {
            throw PortalAuthError(
                .invalidConfiguration, "\(source): missing key \"\(key)\" (a string)",
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
                .invalidConfiguration, "\(source): missing key \"\(key)\" (an array of strings)",
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
        guard let url = URL(string: string), let scheme = url.scheme?.lowercased(),
            let host = url.host(percentEncoded: false)?.lowercased()
        else {
            throw wrongType(key, "an absolute https URL")
        }
        let loopback = host == "127.0.0.1" || host == "localhost" || host == "::1"
        guard scheme == "https" || (scheme == "http" && loopback) else {
            throw wrongType(key, "an https URL (http is allowed only for 127.0.0.1 or localhost), not \(string)")
        }
        return url
    }
}
