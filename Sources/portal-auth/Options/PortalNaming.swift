/// How a command names a portal, for the error that asks for one when several are signed in.
struct PortalNaming: Sendable {
    /// The command line with `URL` where the portal goes (`whoami --portal URL`).
    var usage: String
    /// Another way out, said after the example (`portal-auth logout --all`).
    var alternative: String? = nil

    static let token = PortalNaming(usage: "token URL")
    static let exec = PortalNaming(usage: "exec URL -- COMMAND")
    static let request = PortalNaming(usage: "request URL")
    static let whoami = PortalNaming(usage: "whoami --portal URL")
    static let logout = PortalNaming(usage: "logout --portal URL", alternative: "portal-auth logout --all")
    static let switchAccount = PortalNaming(usage: "switch URL USER")

    /// "name one, for example portal-auth whoami --portal https://…"
    func advice(example portal: String) -> String {
        "name one, for example portal-auth \(usage.replacing("URL", with: portal, maxReplacements: 1))"
            + (alternative.map { ", or use \($0)" } ?? "")
    }
}
