import ArgumentParser

/// Global options (`--cacert`, `--store`, `-v`) before the subcommand, as gh, kubectl and git
/// allow: `portal-auth -v whoami` is read as `portal-auth whoami -v`.
///
/// ArgumentParser only accepts a subcommand's options after its name, so the leading global
/// options are moved to right after the first subcommand name before parsing. Nothing else moves:
/// a command line that starts with anything but a global option (a subcommand, `--help`,
/// `--version`, `-h`, an unknown option) is returned as it is, so the parser answers it as before.
enum GlobalOptionsAnywhere {
    /// The subcommand names (`help` is ArgumentParser's and takes no options).
    static var subcommandNames: Set<String> {
        Set(PortalAuthCommand.configuration.subcommands.map { $0._commandName })
    }

    /// The commands of commands (`api-key list`, `import arcgis-profile`) and their inner names.
    static var innerNames: [String: Set<String>] {
        [APIKey._commandName: APIKey.subcommandNames, Import._commandName: Import.subcommandNames]
    }

    /// `arguments` (without the program name) with the global options that come before the
    /// subcommand moved to right after it.
    static func reorder(_ arguments: [String]) -> [String] {
        // The common case, and `portal-auth token URL` (benchmarked): nothing before the subcommand.
        guard let first = arguments.first, first.hasPrefix("-") else { return arguments }
        let names = subcommandNames
        var moved: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if names.contains(argument) {
                // A command of commands (`api-key list`): the options go after the inner one.
                let inner = index + 1 < arguments.count && innerNames[argument]?.contains(arguments[index + 1]) == true
                let head = inner ? [argument, arguments[index + 1]] : [argument]
                return head + moved + arguments[(index + head.count)...]
            }
            switch argument {
            case "--cacert", "--store":
                // The value follows; without one, the parser says so in its own words.
                guard index + 1 < arguments.count else { return arguments }
                moved += [argument, arguments[index + 1]]
                index += 2
                continue
            case "--verbose":
                moved.append(argument)
            case _ where argument.hasPrefix("--cacert=") || argument.hasPrefix("--store="):
                moved.append(argument)
            case _ where isVerboseCluster(argument):
                moved.append(argument)
            default:
                return arguments
            }
            index += 1
        }
        return arguments
    }

    /// `-v`, `-vv`, `-vvv`…
    static func isVerboseCluster(_ argument: String) -> Bool {
        argument.count >= 2 && argument.first == "-" && argument.dropFirst().allSatisfy { $0 == "v" }
    }
}
