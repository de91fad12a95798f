/// `exec URL COMMAND ARGS...` written without `--`: everything from the first word after the URL
/// is the command, as the user wrote it (`exec URL ogrinfo --version` runs `ogrinfo --version`,
/// it does not print portal-auth's version).
enum ExecCommandLine {
    /// The options of `exec` that take a value (the others are flags).
    static let optionsWithValue: Set<String> = ["--renew-before", "--account", "--cacert", "--store"]

    /// `arguments` (without the program name) with `--` put before the command of an `exec`
    /// command line that has no `--` at all; any other command line as it is.
    static func separated(_ arguments: [String]) -> [String] {
        guard arguments.first == "exec", !arguments.contains("--") else { return arguments }
        var index = 1
        var sawURL = false
        while index < arguments.count {
            let argument = arguments[index]
            if argument.hasPrefix("-"), argument.count > 1 {
                index += optionsWithValue.contains(argument) ? 2 : 1
                continue
            }
            // The first word is the URL when it looks like one (the signed-in portal's is the default).
            if !sawURL, argument.contains("://") {
                sawURL = true
                index += 1
                continue
            }
            return Array(arguments[..<index]) + ["--"] + arguments[index...]
        }
        return arguments
    }
}
