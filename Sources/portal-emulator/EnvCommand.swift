import ArgumentParser
import Foundation

/// `portal-emulator env STATE-FILE`: the shell `export` lines that make curl, wget's callers,
/// python requests, GDAL and portal-auth trust a running emulator, and name its URLs.
struct EnvCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "env",
        abstract: "Print shell export lines for the emulator that wrote STATE-FILE.",
        discussion: """
            Reads the --state-file of a running portal-emulator and prints export lines: \
            PORTAL_AUTH_CA_BUNDLE, CURL_CA_BUNDLE (curl, GDAL), REQUESTS_CA_BUNDLE (python requests) \
            and SSL_CERT_FILE (OpenSSL and python's ssl) name the emulator's CA; PORTAL_URL, \
            SERVER_URL and LAYER (the federated server's Parcels layer) its URLs. SSL_CERT_FILE \
            replaces the system CA store for the programs that read it, so use these lines in a \
            shell or script for the emulator only. Use: eval "$(portal-emulator env STATE-FILE)". \
            An emulator started just before (portal-emulator --state-file F & on the line above) \
            is waited for: up to --wait seconds (default 10) for its state file to appear.
            """)

    @Argument(help: "The file portal-emulator --state-file wrote.")
    var stateFile: String

    @Option(help: "How long to wait for the state file of an emulator that is starting, in seconds (0: not at all).")
    var wait: Double = 10

    /// A one-line error (exit status 1).
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// The fields of the state file this command reads.
    struct State: Decodable {
        var portalURL: String
        var serverURL: String
        var caCertificatePath: String
    }

    func validate() throws {
        guard wait >= 0, wait <= 600 else { throw ValidationError("--wait takes 0 to 600 seconds") }
    }

    func run() throws {
        // The emulator writes the file (atomically) once it listens; a shell that started it on
        // the line before gets here first. Poll, bounded, until it is there.
        let deadline = Date().addingTimeInterval(wait)
        var data = try? Data(contentsOf: URL(fileURLWithPath: stateFile))
        while data == nil, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            data = try? Data(contentsOf: URL(fileURLWithPath: stateFile))
        }
        guard let data else {
            throw Failure(
                "cannot read the state file \(stateFile)\(wait > 0 ? " (waited \(Int(wait)) s)" : ""): start "
                    + "portal-emulator with --state-file \(stateFile) first.")
        }
        let state: State
        do {
            state = try JSONDecoder().decode(State.self, from: data)
        } catch {
            throw Failure("\(stateFile) is not a portal-emulator state file: \(error).")
        }
        FileHandle.standardOutput.write(Data(Self.exports(for: state).utf8))
    }

    /// The export lines, one per variable, each value in single quotes.
    static func exports(for state: State) -> String {
        let variables: [(String, String)] = [
            ("PORTAL_URL", state.portalURL),
            ("SERVER_URL", state.serverURL),
            ("LAYER", state.serverURL + "/rest/services/Parcels/FeatureServer/0"),
            ("PORTAL_AUTH_CA_BUNDLE", state.caCertificatePath),
            ("CURL_CA_BUNDLE", state.caCertificatePath),
            ("REQUESTS_CA_BUNDLE", state.caCertificatePath),
            ("SSL_CERT_FILE", state.caCertificatePath),
        ]
        return variables.map { "export \($0.0)=\(shellQuoted($0.1))\n" }.joined()
    }

    /// `value` in single quotes, each single quote inside written as '\''.
    static func shellQuoted(_ value: String) -> String {
        "'" + value.replacing("'", with: "'\\''") + "'"
    }
}
