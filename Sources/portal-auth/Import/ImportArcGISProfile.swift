import ArgumentParser
import PortalAuth
import PortalAuthToken

#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `portal-auth import arcgis-profile [NAME...]`: the ArcGIS API for Python's saved profiles
/// (`~/.arcgisprofile`, `~/.agsprofile`, their passwords in the keyring), one account each. A
/// password is kept only after the server accepted it, as `login --remember-password` keeps one; a
/// PKI profile's PEM files become a client certificate, stored once its host accepted it, as
/// `login --p12` stores one. The API's files and keyring items are only read.
struct ImportArcGISProfile: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "arcgis-profile",
        abstract: "Import the ArcGIS API for Python's profiles (~/.arcgisprofile, ~/.agsprofile) and their passwords.",
        discussion: """
            Each profile's password is read from the keyring where the API keeps it, checked by signing in, \
            and kept as login --remember-password keeps one (the token renews unattended). One line per \
            profile says what became of it. Nothing is written to the API's files or keyring items.

            Examples:
              portal-auth import arcgis-profile
              portal-auth import arcgis-profile my_enterprise_profile
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The profiles to import (default: all).", valueName: "name"))
    var names: [String] = []

    func run() async throws {
        try await runReportingErrors {
            let manager = try global.makeManager()
            try manager.arcGISCredentialStore.backend.checkAvailable()
            try RememberedPassword.checkStore(manager.arcGISCredentialStore.backend)
            let profiles = try Self.chosen(names, from: try Self.savedProfiles())
            var failed = false
            for profile in profiles {
                let line: String
                do {
                    line = try await Self.importing(profile, manager: manager)
                } catch {
                    (line, failed) = ("not imported: " + Self.reason(error), true)
                }
                outputLine("Profile \(profile.name) (~/\(profile.source.fileName)): \(line)")
            }
            if failed { throw ExitCode(1) }
        }
    }

    /// Why a profile was not imported, in one line.
    static func reason(_ error: any Error) -> String {
        switch error {
        case let error as PortalAuthError: error.cliMessage
        case let error as ValidationError: error.message
        default: APIKeyRotate.message(error)
        }
    }

    /// The profiles of both files, in file order (`~/.arcgisprofile` first).
    static func savedProfiles() throws -> [ArcGISProfile] {
        let home =
            ProcessInfo.processInfo.environment["HOME"] ?? getpwuid(getuid()).map { String(cString: $0.pointee.pw_dir) }
            ?? "/"
        return try ArcGISProfile.Source.allCases.flatMap { source -> [ArcGISProfile] in
            let path = home + "/" + source.fileName
            guard let text = try readProfileFile(path) else { return [] }
            return try ArcGISProfile.profiles(text: text, source: source, path: path)
        }
    }

    /// `names`' profiles, or all; a usage error for a name neither file has, or for no profile at all.
    static func chosen(_ names: [String], from profiles: [ArcGISProfile]) throws -> [ArcGISProfile] {
        guard !profiles.isEmpty else {
            throw PortalAuthError(
                .invalidArgument,
                "no ArcGIS API for Python profiles: ~/.arcgisprofile and ~/.agsprofile hold none (GIS(..., profile=NAME) saves one)"
            )
        }
        if let missing = names.first(where: { name in !profiles.contains { $0.name == name } }) {
            throw PortalAuthError(
                .invalidArgument,
                "no profile named \(missing) in ~/.arcgisprofile or ~/.agsprofile (they hold: "
                    + profiles.map(\.name).joined(separator: ", ") + ")")
        }
        return names.isEmpty ? profiles : profiles.filter { names.contains($0.name) }
    }

    /// A profile file's text (at most ArcGISProfileFile.maximumBytes and one byte more, which the
    /// reader refuses), nil when there is none. Only a regular file is read (never a FIFO that
    /// would block).
    static func readProfileFile(_ path: String) throws -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        if fd < 0, errno == ENOENT { return nil }
        let unreadable = PortalAuthError(
            .invalidConfiguration, "cannot read \(path)", remedy: .checkPermissions(path: path))
        guard fd >= 0 else { throw unreadable }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { throw unreadable }
        var bytes = [UInt8](repeating: 0, count: ArcGISProfileFile.maximumBytes + 1)
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw unreadable }
            if got == 0 { break }
            count += got
        }
        return String(decoding: bytes[..<count], as: UTF8.self)
    }

    /// Imports one profile; the line that says what became of it.
    static func importing(_ profile: ArcGISProfile, manager: AuthenticationManager) async throws -> String {
        switch profile.signIn {
        case .unusable(let reason):
            throw ValidationError(reason)
        case .clientCertificate(let url, let keyFile, let certFile):
            return try await importCertificate(
                profile, url: url, keyFile: keyFile, certFile: certFile, manager: manager)
        case .oauthUser(let url, let clientID):
            return try await importOAuth(profile, url: url, clientID: clientID, manager: manager)
        case .password(let url, let username):
            return try await importPassword(profile, url: url, username: username, manager: manager)
        }
    }

    /// What the API keeps in the keyring for `profile` (a password, or an OAuth profile's refresh
    /// token), under either service name; nil when nothing (or an empty text) is kept.
    static func keyringSecret(_ profile: ArcGISProfile) throws -> String? {
        let keyring = KeyringCredentialBackend()
        for service in profile.keyringServices {
            if let secret = try keyring.pythonKeyringPassword(service: service, username: profile.name), !secret.isEmpty
            {
                return secret
            }
        }
        return nil
    }

    /// A password profile: its password from the keyring, a token sign-in with it (nothing is kept
    /// unless the server accepts it), the account committed, then the password kept.
    static func importPassword(
        _ profile: ArcGISProfile, url: String, username: String, manager: AuthenticationManager
    ) async throws -> String {
        let target =
            profile.source == .portal
            ? try PortalURLInput.read(url, source: "its url", doing: "signing in to") : try parseURL(url)
        let context = try ServerContext(url: target)
        guard let password = try keyringSecret(profile) else {
            throw ValidationError(
                "the keyring holds no password for it (service \(profile.source.keyringService)): run portal-auth "
                    + "login --\(profile.source == .portal ? "portal" : "url") \(context) --username \(username)")
        }
        let credential = try await TokenCredential.credential(
            for: target, username: username, password: password, referer: nil, tokenExpirationMinutes: 60,
            keepPassword: false, services: manager.services)
        let store = manager.arcGISCredentialStore
        let addition = try await store.addAccount(credential)
        _ = try await RememberedPassword.update(
            remember: true, password: password, for: context, username: username, in: store.backend)
        let note = accountNote(addition, user: username, context: context).map { " " + $0 } ?? ""
        return "signed in to \(context) as \(username); the password is kept in the \(store.backend.name) store "
            + "(the token renews unattended).\(note)"
    }
}
