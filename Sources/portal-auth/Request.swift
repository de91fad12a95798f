import ArgumentParser
import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `portal-auth request`: an authenticated ArcGIS REST call.
struct Request: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make an authenticated ArcGIS REST request and print the JSON answer.",
        discussion: """
            The request goes through the AuthenticationManager: a challenge is answered by the plugins \
            (a prompt on a terminal) and the request is retried once. f=json is added.

            Examples:
              portal-auth request https://host/portal/sharing/rest/community/self
              portal-auth request "$SERVER/rest/services/Parcels/FeatureServer/0/query" \\
                -f "where=UseType = 'Government'" -f outFields=* -f returnGeometry=false
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var account: AccountOption

    @Argument(help: "The ArcGIS REST URL.")
    var url: String

    @Option(name: .customShort("f"), help: ArgumentHelp("A request parameter (repeatable).", valueName: "key=value"))
    var fields: [String] = []

    @Flag(help: "Send as POST (long requests are sent as POST anyway).")
    var post = false

    @Flag(help: "Print the body as received instead of pretty-printed JSON.")
    var raw = false

    @Option(
        help: ArgumentHelp(
            "The largest answer accepted, after decompression: bytes, or with K, M or G (binary units); default 64M "
                + "(env PORTAL_AUTH_MAX_RESPONSE_SIZE).",
            valueName: "size"))
    var maxResponseSize: String?

    @Option(
        help: ArgumentHelp(
            "The deadline of each HTTP exchange, in seconds (default 60), or with a unit: 5m.", valueName: "seconds"),
        transform: { try parseDuration($0, option: "--timeout", plainUnit: 1, fractions: true) })
    var timeout: Double?

    /// The transport with this command's limits.
    func makeTransport() throws -> CurlTransport {
        var configuration = global.transportConfiguration
        if let size = try maxResponseSizeInEffect() { configuration.maxResponseSize = size }
        if let timeout {
            guard timeout > 0, timeout.isFinite else {
                throw PortalAuthError(
                    .invalidArgument, "--timeout expects a positive number of seconds, got \(timeout)")
            }
            configuration.timeout = timeout
        }
        return CurlTransport(configuration: configuration)
    }

    /// `--max-response-size`, else `PORTAL_AUTH_MAX_RESPONSE_SIZE`, in bytes; nil when neither is given.
    func maxResponseSizeInEffect() throws -> Int? {
        let (text, source): (String, String)
        if let maxResponseSize {
            (text, source) = (maxResponseSize, "--max-response-size")
        } else if let env = environmentVariable("PORTAL_AUTH_MAX_RESPONSE_SIZE"), !env.isEmpty {
            (text, source) = (env, "PORTAL_AUTH_MAX_RESPONSE_SIZE")
        } else {
            return nil
        }
        guard let bytes = parseByteSize(text), bytes > 0 else {
            throw PortalAuthError(
                .invalidArgument, "\(source) expects a size such as 64M, 512K or 1048576, got '\(text)'")
        }
        return bytes
    }

    func run() async throws {
        try await runReportingErrors {
            let (manager, target) = try await global.managerAndTarget(
                url, transport: makeTransport(), storedAccount: account.name)
            let parameters = try fields.map { field -> (String, String) in
                guard let equals = field.firstIndex(of: "="), equals != field.startIndex else {
                    throw PortalAuthError(.invalidArgument, "-f expects key=value, got '\(field)'")
                }
                return (String(field[..<equals]), String(field[field.index(after: equals)...]))
            }
            try await manager.adoptStoredAPIKey(for: target)  // API key (#22)
            let response = try await manager.send(
                ArcGISRequest(url: target, parameters: parameters, method: post ? .post : .automatic))
            if raw {
                outputRaw(response.http.text)  // asked for as the server sent it
            } else if response.json == nil {
                output(response.http.text)
            } else {
                output(try response.json!.jsonText(pretty: true))
            }
        }
    }
}
