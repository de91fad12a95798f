/// A profile file of the ArcGIS API for Python (`~/.arcgisprofile`, `~/.agsprofile`): an INI
/// file that Python's `configparser` writes, one section per profile.
///
/// Read as `configparser` reads it, strictly and in one pass: `[name]` headers, `key = value` or
/// `key: value` options (keys in lower case), `#` and `;` comment lines, indented continuation
/// lines, `[DEFAULT]` values under every section. A file larger than ``maximumBytes`` or with a
/// repeated section (which `configparser` refuses too) is refused whole.
public struct ArcGISProfileFile: Sendable, Equatable {
    /// One section: its name and options, in the file's order.
    public struct Section: Sendable, Equatable {
        /// The profile's name.
        public var name: String
        /// The options, keys in lower case.
        public var options: [String: String]

        /// A section of these options.
        public init(name: String, options: [String: String]) {
            self.name = name
            self.options = options
        }
    }

    /// The sections, in the file's order (`DEFAULT` left out, its values merged into each).
    public var sections: [Section]

    /// The largest file read: 1 MiB (the API writes a few lines per profile).
    public static let maximumBytes = 1 << 20
    /// The most profiles a file may hold, and options a profile (or `[DEFAULT]`) may have: the
    /// bounds that keep merging `[DEFAULT]` into every profile small.
    public static let maximumSections = 1_000, maximumOptions = 100

    /// Reads `text` (`source` names it in errors).
    ///
    /// - Throws: ``PortalAuthError/Code/invalidConfiguration`` naming the line of the problem.
    public init(text: String, source: String) throws {
        guard text.utf8.count <= Self.maximumBytes else {
            throw Self.problem(source, 0, "it is larger than \(Self.maximumBytes) bytes")
        }
        var sections: [Section] = []
        var names: Set<String> = []
        var defaults: [String: String] = [:]
        var inDefault = false
        var lastKey: String?
        var number = 0
        // Python reads the file with universal newlines: LF, CRLF (one Character) and CR end a line.
        for line in text.split(
            omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
        {
            number += 1
            let trimmed = line.trimmedOfWhitespace
            if trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed.hasPrefix(";") {
                if trimmed.isEmpty { lastKey = nil }
                continue
            }
            if line.first == " " || line.first == "\t", let key = lastKey {
                if inDefault {
                    defaults[key, default: ""] += "\n" + trimmed
                } else {
                    sections[sections.count - 1].options[key, default: ""] += "\n" + trimmed
                }
                continue
            }
            if line.first == "[", let close = line.lastIndex(of: "]"), close > line.startIndex {
                let name = String(line[line.index(after: line.startIndex)..<close])
                guard !name.isEmpty else { throw Self.problem(source, number, "a section without a name") }
                lastKey = nil
                inDefault = name == "DEFAULT"
                if inDefault { continue }
                guard names.insert(name).inserted else {
                    throw Self.problem(source, number, "the profile [\(name)] is there twice")
                }
                guard names.count <= Self.maximumSections else {
                    throw Self.problem(source, number, "more than \(Self.maximumSections) profiles")
                }
                sections.append(Section(name: name, options: [:]))
                continue
            }
            guard inDefault || !sections.isEmpty else {
                throw Self.problem(source, number, "an option before the first [profile]")
            }
            let (key, value) = try Self.option(line, source: source, number: number)
            if inDefault { defaults[key] = value } else { sections[sections.count - 1].options[key] = value }
            guard (inDefault ? defaults.count : sections[sections.count - 1].options.count) <= Self.maximumOptions
            else {
                throw Self.problem(source, number, "more than \(Self.maximumOptions) options in one profile")
            }
            lastKey = key
        }
        self.sections = sections.map { section in
            Section(name: section.name, options: section.options.merging(defaults) { own, _ in own })
        }
    }

    /// `key = value` or `key: value` (split at the first of either), the key in lower case.
    private static func option(_ line: Substring, source: String, number: Int) throws -> (String, String) {
        guard let delimiter = line.firstIndex(where: { $0 == "=" || $0 == ":" }) else {
            throw problem(source, number, "a line that is neither [profile] nor key = value")
        }
        let key = line[..<delimiter].trimmedOfWhitespace.lowercased()
        guard !key.isEmpty else { throw problem(source, number, "an option without a name") }
        return (key, line[line.index(after: delimiter)...].trimmedOfWhitespace)
    }

    private static func problem(_ source: String, _ line: Int, _ what: String) -> PortalAuthError {
        PortalAuthError(
            .invalidConfiguration, "\(source)\(line > 0 ? " line \(line)" : "") cannot be read: \(what)",
            remedy: .fixConfiguration(file: source, key: nil))
    }
}

extension Substring {
    /// Without the white space at either end (as Python's `str.strip()`).
    var trimmedOfWhitespace: String {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return String(self[first...last])
    }
}
