import ArgumentParser
import Logging
import PortalAuth
import PortalAuthEnvironment

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// `portal-auth doctor`: which store is in use and why any is unavailable.
struct Doctor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Check the credential stores, libcurl, the CA bundle, Kerberos and proxies, and say how to fix what fails.",
        discussion: """
            Exits 5 when the store in use or the CA bundle is unusable.

            Examples:
              portal-auth doctor
              portal-auth doctor --store file --cacert ca.pem
            """)

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await runReportingErrors {
            let (kind, reason, headless) = try global.probedStoreChoice()
            GlobalOptions.bootstrapLogging(verbose: global.verbose)
            if global.verbose > 0 {
                Logger(label: "portal-auth").debug(
                    "credential store", metadata: ["store": "\(kind.rawValue)", "chosen by": "\(reason)"])
            }
            output("store in use: \(kind.rawValue) (\(reason))")
            if let path = headless?.path { output("[info]   the headless file store: \(path)") }
            var selectedOK = true
            for candidate in CredentialStorageKind.allCases {
                let backend = candidate.makeBackend()
                do {
                    try backend.checkAvailable()
                    output("[ok]     \(candidate.rawValue): \(backend.location)")
                } catch let error as PortalAuthError {
                    output("[failed] \(candidate.rawValue): \(error.cliMessage)")
                    if candidate == kind { selectedOK = false }
                }
            }
            do {
                output("[ok]     libcurl: \(try CurlTransport.libraryVersion())")
            } catch let error as PortalAuthError {
                output("[failed] libcurl: \(error.cliMessage)")
            }
            if let bundle = global.caBundlePath {
                do {
                    try CABundleCheck.check(bundle)
                    output("[ok]     CA bundle: \(bundle)")
                } catch let error as PortalAuthError {
                    output("[failed] CA bundle: \(error.cliMessage)")
                    selectedOK = false
                }
            } else {
                output("[ok]     CA bundle: the system's trusted CAs (set --cacert or PORTAL_AUTH_CA_BUNDLE to change)")
            }
            if let principal = KerberosTicket.current() {
                output("[ok]     Kerberos: a ticket for \(principal) (Negotiate servers use it)")
            } else {
                output("[info]   Kerberos: no ticket (Negotiate servers use a stored password, or run kinit)")
            }
            if let environment = EnvironmentCredentials.report() { output("[info]   \(environment)") }
            let env = ProcessInfo.processInfo.environment
            for name in ["https_proxy", "HTTPS_PROXY", "http_proxy", "no_proxy", "NO_PROXY"] {
                if let value = env[name], !value.isEmpty { output("[info]   \(name)=\(redactProxy(value))") }
            }
            if !selectedOK { throw ExitCode(5) }
        }
    }

    /// A proxy URL without its password.
    func redactProxy(_ value: String) -> String {
        guard let at = value.lastIndex(of: "@"), let scheme = value.firstRange(of: "://") else { return value }
        return String(value[..<scheme.upperBound]) + "***" + String(value[at...])
    }
}
