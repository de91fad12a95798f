internal import CommandSpelling

/// `portal-auth WORD …` where WORD is no command: the full program's usage error
/// (`UsageMistakes.unknownCommand`), answered here without starting the full program, for the
/// mistake people make most (a misspelt command in a script or at the prompt).
///
/// It answers only the plainest case, where the full program's answer cannot depend on anything
/// else: the first word is not a command and is spelt in ASCII letters, digits, `.`, `_` and `-`
/// (nothing to clean for a terminal), and no argument is an option (`tokn --help` prints the help,
/// `tokn --version` the version). Everything else goes to the full program. The list of commands
/// and the wording are the full program's; `UnknownCommandFrontTests` holds them equal, and
/// runs both programs over a table of words.
enum UnknownCommand {
    /// The full program's commands, in the order it lists them (`PortalAuthCommand`'s
    /// subcommands, then `help`).
    static let commands = [
        "login", "token", "exec", "request", "whoami", "status", "switch", "logout", "trust", "untrust", "doctor",
        "completion", "serve", "renew", "api-key", "import", "help",
    ]

    /// The usage error's two lines for `arguments` (without the program name), or nil when the
    /// full program must answer.
    static func message(for arguments: [String]) -> String? {
        guard let word = arguments.first, !commands.contains(word), isPlain(word),
            !arguments.contains(where: { $0.hasPrefix("-") })
        else { return nil }
        let line: String
        if let nearest = Spelling.nearest(word, among: commands, maxDistance: 2) {
            line = "unknown command '\(word)'; did you mean 'portal-auth \(nearest)'?"
        } else {
            line = "unknown command '\(word)'; the commands are \(commands.joined(separator: ", "))"
        }
        return "portal-auth: \(line)\nSee 'portal-auth --help'.\n"
    }

    /// ASCII letters, digits, `.`, `_` and `-`, 1 to 64 of them, not starting with `-`.
    static func isPlain(_ word: String) -> Bool {
        let bytes = Array(word.utf8)
        guard (1...64).contains(bytes.count), bytes[0] != UInt8(ascii: "-") else { return false }
        return bytes.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }
}
