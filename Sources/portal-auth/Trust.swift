import ArgumentParser
import PortalAuth
import PortalAuthServerTrust

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `portal-auth trust`: pin the key of a server whose certificate does not verify.
struct Trust: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Trust a server whose certificate does not verify (self-signed, expired, unknown CA) by pinning its key.",
        discussion: """
            Shows the certificate and its SHA-256 fingerprint and asks. The key is pinned for that \
            host and port only; verification is never switched off. Compare the fingerprint with \
            the server's (openssl x509 -in cert.pem -noout -fingerprint -sha256) and confirm without \
            a prompt with --fingerprint (with or without colons, either case).

            Examples:
              portal-auth trust intranet.example.com:8443
              portal-auth trust intranet.example.com:8443 --fingerprint AA:BB:...
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(
        help: ArgumentHelp("The server: HOST, HOST:PORT (default port 443) or an https URL.", valueName: "host[:port]"))
    var server: String

    @Option(
        help: ArgumentHelp(
            "The SHA-256 fingerprint you expect; trusts without asking when it matches.", valueName: "sha256"))
    var fingerprint: String?

    func validate() throws {
        if let fingerprint, CertificateSummary.normalizedFingerprint(fingerprint) == nil {
            throw ValidationError(
                "--fingerprint '\(fingerprint)' is not a SHA-256 fingerprint: give its 64 hexadecimal digits, with or "
                    + "without colons"
            )
        }
    }

    func run() async throws {
        try await runReportingErrors {
            let host = try parseHostArgument(server)
            let manager = try global.makeManager()
            try manager.networkCredentialStore.backend.checkAvailable()
            let report = try await manager.transport.serverCertificate(host: host.host, port: host.port)
            let details = describeCertificate(report)
            guard report.failure != nil else {
                output(details)
                output("Nothing to trust: it verifies already.")
                return
            }
            if let fingerprint {
                let expected = CertificateSummary.normalizedFingerprint(fingerprint)!
                guard expected == report.certificate.sha256Fingerprint else {
                    throw PortalAuthError(
                        .untrustedServer,
                        "\(host.host):\(host.port) presents a certificate with SHA-256 "
                            + "\(report.certificate.sha256Fingerprint), not the \(expected) given: nothing was "
                            + "trusted; check which certificate the server should have"
                    )
                }
                printInfo(details)
            } else {
                guard stdinIsTerminal else {
                    printInfo(details)
                    throw PortalAuthError(
                        .untrustedServer,
                        "stdin is not a terminal, so nobody can confirm: check the fingerprint above with the server's "
                            + "administrator and run portal-auth trust \(host.host):\(host.port) --fingerprint SHA256; "
                            + "nothing was trusted"
                    )
                }
                guard try await TerminalServerTrustDecider().shouldTrust(report) else {
                    throw PortalAuthError(.cancelled, "not trusted: nothing was stored")
                }
            }
            let trust = try ServerTrustCredential(report)
            try await manager.networkCredentialStore.commit(trust, origin: .signIn)
            output(
                "Trusted \(host.host):\(host.port): its key is pinned (SHA-256 "
                    + "\(report.certificate.sha256Fingerprint)) in the \(manager.networkCredentialStore.backend.name) "
                    + "store. Undo with portal-auth untrust \(host.host):\(host.port)."
            )
        }
    }
}

/// `portal-auth untrust`: forget a trusted server.
struct Untrust: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Forget a server trusted with portal-auth trust: its certificate must verify again.",
        discussion: """
            Nothing to forget is not an error: it says so and exits 0.

            Examples:
              portal-auth untrust intranet.example.com:8443
              portal-auth untrust https://intranet.example.com:8443/portal
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(
        help: ArgumentHelp("The server: HOST, HOST:PORT (default port 443) or an https URL.", valueName: "host[:port]"))
    var server: String

    func run() async throws {
        try await runReportingErrors {
            let host = try parseHostArgument(server)
            let manager = try global.makeManager()
            let removed = try await manager.networkCredentialStore.forget(.host(host), kind: ServerTrustCredential.kind)
            output(
                removed == 0
                    ? "\(host.host):\(host.port) was not trusted; nothing to remove."
                    : "\(host.host):\(host.port) is no longer trusted.")
        }
    }
}

/// `HOST`, `HOST:PORT`, `[v6]:PORT` or an https URL → `https://host:port`.
func parseHostArgument(_ text: String) throws -> ServerContext {
    let url = try parseURL(text.contains("://") ? text : "https://" + text)
    guard url.scheme?.lowercased() == "https" else {
        throw PortalAuthError(
            .invalidArgument, "'\(text)': trust is about TLS certificates, so give an https server (HOST[:PORT])")
    }
    return try ServerContext.host(of: url)
}
