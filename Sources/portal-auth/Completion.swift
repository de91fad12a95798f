import ArgumentParser

/// `portal-auth completion bash|zsh|fish`: the shell completion script, as the hidden
/// `--generate-completion-script` flag prints it, under a name people look for.
struct Completion: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the shell completion script for bash, zsh or fish.",
        discussion: """
            The Debian package installs them already. By hand, for the current shell only, or from \
            a shell's start-up file:

            Examples:
              portal-auth completion fish > ~/.config/fish/completions/portal-auth.fish
              source <(portal-auth completion bash)
              source <(portal-auth completion zsh)
            """
    )

    /// The shells ArgumentParser writes completion scripts for.
    enum Shell: String, ExpressibleByArgument, CaseIterable {
        case bash, zsh, fish

        var argumentParserShell: CompletionShell {
            switch self {
            case .bash: .bash
            case .zsh: .zsh
            case .fish: .fish
            }
        }
    }

    @Argument(help: "bash, zsh or fish.")
    var shell: Shell

    func run() {
        var text = PortalAuthCommand.completionScript(for: shell.argumentParserShell)
        if !text.hasSuffix("\n") { text += "\n" }
        writeAll(1, &text)
    }
}
