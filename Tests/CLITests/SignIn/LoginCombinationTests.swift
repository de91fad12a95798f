import Testing

/// `login`'s table of what each sign-in takes (LoginMode): options a sign-in has no use for are
/// refused in one line, before anything is read or sent.
@Suite struct LoginCombinationTests {
    static let portal = "https://portal.example.com/portal"
    static let server = "https://server.example.com/arcgis"

    /// Command lines that cannot mean anything, and what the one line says.
    static let refused: [([String], String)] = [
        (
            ["--portal", portal, "--username", "alice", "--timeout", "5"],
            "--timeout cannot be combined with a password sign-in"
        ),
        (
            ["--portal", portal, "--username", "alice", "--expires-in", "60"],
            "--expires-in cannot be combined with a password sign-in"
        ),
        (
            ["--portal", portal, "--client-id", "app", "--referer", "r"],
            "--referer cannot be combined with --client-id"
        ),
        (
            ["--portal", portal, "--client-id", "app", "--username", "alice"],
            "--username cannot be combined with --client-id"
        ),
        (
            ["--portal", portal, "--client-id", "app", "--oob", "--redirect-url", "http://127.0.0.1/cb"],
            "--redirect-url and --oob cannot be used together"
        ),
        (
            ["--portal", portal, "--client-id", "app", "--client-secret-stdin", "--no-browser"],
            "--no-browser cannot be combined with an app sign-in"
        ),
        (["--url", server, "--kerberos", "--password-stdin"], "--password-stdin cannot be combined with --kerberos"),
        (["--url", server, "--p12", "me.p12", "--kerberos"], "--kerberos cannot be combined with --p12"),
        (["--portal", server, "--p12", "me.p12"], "--p12 needs --url URL"),
        (
            ["--url", server, "--token-stdin", "--password-stdin"],
            "--password-stdin cannot be combined with --token-stdin"
        ),
        (["--config", "f.json", "--timeout", "5", "--oob"], "--timeout, --oob cannot be combined with --config"),
        (["--token-stdin"], "--token-stdin needs --url URL"),
        (["--portal", portal], "--username is required for a password sign-in"),
        ([], "say where to sign in"),
    ]

    @Test(arguments: refused) func aCombinationNoSignInTakesIsRefusedInOneLine(
        _ arguments: [String], _ says: String
    )
        async throws
    {
        let r = try await CLI.portalAuth(["login", "--store", "memory"] + arguments, emulator: nil)
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.hasPrefix("portal-auth: \(says)"), "\(r.stderr)")
        // The one line, then the help hint every usage error ends with.
        #expect(r.stderr.split(separator: "\n").dropFirst() == ["See 'portal-auth login --help'."], "\(r.stderr)")
    }
}
