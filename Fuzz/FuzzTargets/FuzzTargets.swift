// What each libFuzzer target checks with one input: a parser of bytes a server, a file or the
// credential store hands portal-auth. The fuzz executables (Fuzz/Fuzz*/main.swift, run by
// scripts/fuzz.sh) and the corpus replay test (FuzzCorpusTests) share these bodies, so every
// seed and every crash kept in Fuzz/Corpus/NAME runs in the ordinary test suite too.
//
// Each body calls the production parser (never a copy) and checks what must hold of whatever it
// accepts, with `precondition`: a broken invariant is a crash to libFuzzer, like a trap.
import PortalAuth
import PortalAuthServe

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The parsers under fuzzing, by target name.
public enum FuzzTargets {
    /// Every target: its name (the folder under `Fuzz/Corpus`) and its body.
    public static let all: [(name: String, body: @Sendable ([UInt8]) -> Void)] = [
        ("ArcGISJSON", arcGISJSON),
        ("PKCS12", pkcs12),
        ("TokenAnswer", tokenAnswer),
        ("AuthenticateHeader", authenticateHeader),
        ("ConfigurationFile", configurationFile),
        ("LoopbackRequest", loopbackRequest),
        ("StoredCredential", storedCredential),
        ("CredentialFile", credentialFile),
        ("KeyringIndex", keyringIndex),
        ("URLContext", urlContext),
        ("LoopbackHTTPRequest", loopbackHTTPRequest),
        ("ProcNetTCP", procNetTCP),
        ("ArcGISProfile", arcGISProfile),
        ("FrontDBusReply", frontDBusReply),
        ("PEMClientCertificate", pemClientCertificate),
    ]

    /// ArcGIS JSON answers and error bodies (every response passes through both).
    public static func arcGISJSON(_ bytes: [UInt8]) {
        if let value = try? JSONValue.parse(bytes, source: "fuzz") { _ = value.description }
        _ = ArcGISError.parse(bytes)
    }

    /// PKCS#12 inspection through OpenSSL (C): the first byte picks a password, the rest is the file.
    public static func pkcs12(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        let passwords = ["", "changeit", "test-p12-password", "\u{0}x"]
        _ = try? PKCS12Bundle(bytes: Array(bytes.dropFirst()), password: passwords[Int(first) % passwords.count])
    }
}

/// Invariants the bodies share.
enum Check {
    /// The fixed time at which answers are received (a token must not have expired by then).
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// A token that was accepted can go in a header and has a real expiry after `now`.
    static func issued(_ token: TokenInfo, _ what: String) {
        precondition(TokenInfo.isUsableToken(token.accessToken), "\(what): an unusable token was accepted")
        if let date = token.expirationDate {
            precondition(date.timeIntervalSince1970.isFinite, "\(what): the expiry is not a time")
            precondition(date > now, "\(what): a token expired on arrival was accepted")
            _ = date.formatted(.iso8601)  // as `status` prints it
        }
    }

    /// A lifetime that was accepted is absent, a number, or a string of digits: never `"soon"`,
    /// which would have been kept as a token that never expires.
    static func lifetimeIsANumber(_ value: JSONValue?, _ what: String) {
        switch value {
        case nil, .null?, .number?: return
        case .string(let s)?:
            precondition(
                s.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || $0 == 46 }, "\(what): lifetime '\(s)' was accepted")
        default: preconditionFailure("\(what): a lifetime that is not a number was accepted")
        }
    }

    /// A date read from a server or a store is a real time.
    static func finite(_ date: Date?, _ what: String) {
        precondition(date.map { $0.timeIntervalSince1970.isFinite } ?? true, "\(what): the date is not a time")
    }

    /// Text shown in a terminal (messages, prompts) carries no control characters.
    static func printable(_ text: String, _ what: String) {
        precondition(!text.unicodeScalars.contains { $0.properties.generalCategory == .control }, "\(what): \(text)")
    }

    /// Whatever a parser throws is a ``PortalAuthError`` (the CLI renders its remedy).
    static func portalAuthError(_ error: any Error, _ what: String) -> PortalAuthError {
        guard let error = error as? PortalAuthError else { preconditionFailure("\(what) threw \(error)") }
        return error
    }
}
