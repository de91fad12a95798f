import ArgumentParser

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The words a command takes, as the parser describes them: its options (and whether each takes a
/// value) and its subcommands.
struct CommandWords {
    /// Every option name (`--portal`, `-v`), and whether it takes a value.
    var options: [String: Bool] = ["--help": false, "-h": false]
    /// A subcommand: its name and its words.
    struct Subcommand {
        var name: String
        var words: CommandWords
    }

    /// The subcommands by name (with `help`), in the order the command lists them.
    var subcommands: [Subcommand] = []

    init(_ command: any ParsableCommand.Type) {
        guard let data = command._dumpHelp().data(using: .utf8),
            let tool = try? JSONDecoder().decode(DumpedTool.self, from: data)
        else {
            self.init(DumpedTool.Command(commandName: "", arguments: nil, subcommands: nil))
            return
        }
        self.init(tool.command)
    }

    private init(_ info: DumpedTool.Command) {
        for argument in info.arguments ?? [] where argument.kind != "positional" {
            for name in argument.names ?? [] {
                let dashes = name.kind == "long" ? "--" : "-"
                options[dashes + name.name] = argument.kind == "option"
            }
        }
        subcommands = (info.subcommands ?? []).map { Subcommand(name: $0.commandName, words: CommandWords($0)) }
    }

    /// Whether `word` is a cluster of short flags (`-vv`).
    func isShortCluster(_ word: String) -> Bool {
        guard word.count > 2, word.hasPrefix("-"), !word.hasPrefix("--") else { return false }
        return word.dropFirst().allSatisfy { options["-\($0)"] == false }
    }
}

/// The part of ArgumentParser's `--experimental-dump-help` description that names the words.
private struct DumpedTool: Decodable {
    struct Name: Decodable {
        var kind: String
        var name: String
    }
    struct Argument: Decodable {
        var kind: String
        var names: [Name]?
    }
    struct Command: Decodable {
        var commandName: String
        var arguments: [Argument]?
        var subcommands: [Command]?
    }
    var command: Command
}
