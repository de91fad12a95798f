// The first mistakes a person makes on a command line, answered in one line the way gh, kubectl
// and git answer them: the unknown word named, and the nearest valid one (or the option meant).
import ArgumentParser
import CommandSpelling

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Finds an unknown subcommand or option in a command line that the parser refused, and words it
/// as one line with the nearest valid word (edit distance) or the option people mean by habit.
///
/// It runs only after the parser has refused the command line (or for `help WORD`), so a command
/// line that parses costs nothing: the option names are read from the parser's own description of
/// the commands then.
enum UsageMistakes {
    /// Options people type from habit, the option meant, and why it is spelt so (nil: no reason
    /// beyond the name).
    static let habits: [String: (meant: String, why: String?)] = [
        "--password": (
            "--password-stdin",
            "a password is never taken from the command line, where ps and the shell history show it: pipe it to "
                + "--password-stdin, or leave it out to be asked without echo"
        ),
        "-p": ("--password-stdin", nil),
        "--pass": ("--password-stdin", nil),
        "--user": ("--username", nil), "-u": ("--username", nil), "--login": ("--username", nil),
        "--token": (
            "--token-stdin",
            "a token is never taken from the command line, where ps and the shell history show it: pipe it to "
                + "--token-stdin"
        ),
        "--secret": ("--client-secret-stdin", nil),
        "--client-secret": (
            "--client-secret-stdin",
            "a client secret is never taken from the command line, where ps and the shell history show it: pipe "
                + "it to --client-secret-stdin or set PORTAL_AUTH_CLIENT_SECRET"
        ),
        "--api-key": (
            "--api-key-stdin",
            "an API key is never taken from the command line, where ps and the shell history show it: pipe it to "
                + "--api-key-stdin"
        ),
        "--apikey": ("--api-key-stdin", nil), "--key": ("--api-key-stdin", nil),
        "--client": ("--client-id", nil), "--clientid": ("--client-id", nil), "--app-id": ("--client-id", nil),
        "--server": ("--url", nil), "--host": ("--url", nil),
    ]
    /// The one line for the first unknown word of `arguments` (without the program name), or nil
    /// when every word is known (the parser's own message is then the better one).
    static func explain(_ arguments: [String]) -> String? {
        var root = CommandWords(PortalAuthCommand.self)
        // The global options, which may come before the subcommand (GlobalOptionsAnywhere).
        for (option, takesValue) in ["--cacert": true, "--store": true, "--verbose": false, "-v": false] {
            root.options[option] = takesValue
        }
        guard let first = arguments.first else { return nil }
        if first == "help" {
            guard arguments.count > 1 else { return nil }
            return unknownCommand(arguments[1], among: root.subcommands)
        }
        guard let subcommand = root.subcommands.first(where: { $0.name == first }) else {
            // Before the subcommand: root options (--version, --help, the global options) and the name.
            return unknownWord(in: arguments, command: root, name: nil, root: root)
        }
        return unknownWord(
            in: Array(arguments.dropFirst()), command: subcommand.words, name: subcommand.name, root: root)
    }

    /// The first unknown option (or, at the top level, unknown command) in `arguments`.
    private static func unknownWord(
        in arguments: [String], command: CommandWords, name: String?, root: CommandWords
    ) -> String? {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" { return nil }
            guard argument.hasPrefix("-"), argument.count > 1 else {
                // A positional word: at the top level, it is the command.
                if name == nil { return unknownCommand(argument, among: root.subcommands) }
                continue
            }
            let spelt = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            if let takesValue = command.options[spelt] {
                if takesValue, !argument.contains("=") { index += 1 }
                continue
            }
            if command.isShortCluster(spelt) { continue }
            if spelt.hasPrefix("-"), !spelt.hasPrefix("--"), Double(spelt) != nil { continue }  // a negative number
            return unknownOption(spelt, command: command, name: name)
        }
        return nil
    }

    /// `unknown command 'logn'; did you mean 'login'?`
    static func unknownCommand(_ word: String, among subcommands: [CommandWords.Subcommand]) -> String? {
        let names = subcommands.map(\.name)
        if names.contains(word) { return nil }
        let shown = terminalText(word)
        if let nearest = Spelling.nearest(word, among: names, maxDistance: 2) {
            return "unknown command '\(shown)'; did you mean 'portal-auth \(nearest)'?"
        }
        return "unknown command '\(shown)'; the commands are \(names.joined(separator: ", "))"
    }

    /// `unknown option '--portl' for login; did you mean '--portal'?`, or the option meant by habit.
    static func unknownOption(_ spelt: String, command: CommandWords, name: String?) -> String {
        let shown = terminalText(spelt)
        let place = name.map { " for \($0)" } ?? ""
        // (Only where the command takes the option meant: `token --password` is no sign-in.)
        if let habit = habits[spelt], command.options[habit.meant] != nil {
            if let why = habit.why { return "unknown option '\(shown)'\(place): \(why)" }
            return "unknown option '\(shown)'\(place); did you mean '\(habit.meant)'?"
        }
        let longNames = command.options.keys.filter { $0.hasPrefix("--") }
        if spelt.hasPrefix("--"), let nearest = Spelling.nearest(spelt, among: longNames, maxDistance: nil) {
            return "unknown option '\(shown)'\(place); did you mean '\(nearest)'?"
        }
        return "unknown option '\(shown)'\(place)"
    }
}
