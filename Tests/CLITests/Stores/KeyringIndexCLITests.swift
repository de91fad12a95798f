import Foundation
import PortalEmulator
import TestSupport
import Testing

/// gnome-keyring looks at every item on each search, so in a large keyring `token` reads its item
/// where the last lookup found it (the keyring index, beside the keyring's lock file), and answers
/// "is any proxy credential stored?" from there too. These tests hold the index to being a hint
/// that is checked, and forgotten whenever portal-auth changes the keyring.
@Suite struct KeyringIndexCLITests {
    /// The index file of the private keyring (one keyring, so one index).
    func indexFile(_ keyring: PrivateKeyring) throws -> String {
        let folder = keyring.directory + "/portal-auth/locks"
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".index") }
        try #require(names.count == 1, "index files: \(names)")
        return folder + "/" + names[0]
    }

    /// The D-Bus object path of the one portal-auth item of `server`.
    func itemPath(_ server: String, environment: [String: String]) async throws -> String {
        let found = try await gdbus(
            "/org/freedesktop/secrets", "org.freedesktop.Secret.Service.SearchItems",
            "{'application': 'portal-auth', 'server': '\(server)'}", environment: environment)
        let paths = found.stdout.split(separator: "'").filter { $0.hasPrefix("/org/freedesktop/secrets/") }
        try #require(paths.count == 1, "\(found.stdout) \(found.stderr)")
        return String(paths[0])
    }

    /// `gdbus call` of a Secret Service method.
    func gdbus(
        _ path: String, _ method: String, _ arguments: String..., environment: [String: String]
    ) async throws -> CLIResult {
        try await CLI.run(
            "/usr/bin/gdbus",
            ["call", "--session", "--dest", "org.freedesktop.secrets", "--object-path", path, "--method", method]
                + arguments, environment: environment)
    }

    @Test func theItemIsReadWhereTheLastLookupFoundItAndKeptOnlyWhenItIsTheURLs() async throws {
        try await withEmulator { emulator in
            try await withPrivateKeyring { keyring in
                let env = keyring.environment
                let (a, b) = (emulator.baseURL + "/index-a", emulator.baseURL + "/index-b")
                let tokens = [a: "token-a-\(UUID().uuidString)", b: "token-b-\(UUID().uuidString)"]
                for url in [a, b] {
                    let r = try await CLI.portalAuth(
                        ["login", "--url", url, "--token-stdin", "--unchecked", "--expires-in", "3600"],
                        emulator: emulator,
                        stdin: tokens[url]!, environment: env)
                    #expect(r.status == 0, "\(r.stderr)")
                }
                func token(_ url: String) async throws -> CLIResult {
                    try await CLI.portalAuth(["token", url], emulator: emulator, environment: env)
                }
                for url in [a, b] { #expect(try await token(url).trimmedStdout == tokens[url]) }
                let (pathA, pathB) = (try await itemPath(a, environment: env), try await itemPath(b, environment: env))
                let file = try indexFile(keyring)
                let text = try String(contentsOfFile: file, encoding: .utf8)
                #expect(text.contains(" \(pathA)\n") && text.contains(" \(pathB)\n"), "\(text)")

                // Each URL's entry pointed at the other's item: what is read there is not the URL's
                // credential, so it is searched for again (and the entry mended).
                let swapped = text.replacing(pathA, with: "@A").replacing(pathB, with: pathA).replacing(
                    "@A", with: pathB)
                try swapped.write(toFile: file, atomically: true, encoding: .utf8)
                for url in [a, b] { #expect(try await token(url).trimmedStdout == tokens[url]) }
                #expect(try String(contentsOfFile: file, encoding: .utf8) == text)

                // A's item taken out of every search (another `application` attribute), left at its
                // path: it is still read there, so no search was made.
                let moved = try await gdbus(
                    pathA, "org.freedesktop.DBus.Properties.Set", "org.freedesktop.Secret.Item", "Attributes",
                    "<{'application': 'portal-auth-moved', 'store': 'arcgis', 'server': '\(a)'}>", environment: env)
                #expect(moved.status == 0, "\(moved.stderr)")
                #expect(try await CLI.keyringItems(server: a, environment: env).isEmpty)
                #expect(
                    try await gdbus(
                        pathA, "org.freedesktop.DBus.Properties.Get", "org.freedesktop.Secret.Item",
                        "Attributes", environment: env
                    ).stdout.contains("portal-auth-moved"))
                #expect(try await token(a).trimmedStdout == tokens[a])

                // Any change portal-auth makes to the keyring forgets the index: now A is searched
                // for, and not found.
                let other = try await CLI.portalAuth(
                    ["login", "--url", emulator.baseURL + "/index-c", "--token-stdin", "--unchecked"],
                    emulator: emulator,
                    stdin: "token-c", environment: env)
                #expect(other.status == 0, "\(other.stderr)")
                #expect(!FileManager.default.fileExists(atPath: file))
                let gone = try await token(a)
                #expect(gone.status == 3 && gone.oneLineError, "\(gone.status): \(gone.stderr)")
                #expect(try await token(b).trimmedStdout == tokens[b])
            }
        }
    }

    /// `--format header` asks whether any proxy credential is stored; the answer "none" is kept in
    /// the index, and signing in to the proxy forgets it.
    @Test func aProxySignInAfterALookupIsSeenByTheNextOne() async throws {
        try await withEmulator(configuring: { $0.proxyPort = 0 }) { emulator in
            try await withPrivateKeyring { keyring in
                let env = keyring.environment
                try await withIAPConfig(emulator) { config in
                    let proxied = emulator.proxyBaseURL! + "/portal"
                    let arcGIS = try await CLI.portalAuth(
                        ["login", "--url", proxied, "--token-stdin", "--unchecked", "--expires-in", "3600"],
                        emulator: emulator,
                        stdin: "arcgis-token", environment: env)
                    #expect(arcGIS.status == 0, "\(arcGIS.stderr)")
                    let before = try await CLI.portalAuth(
                        ["token", proxied, "--format", "header"], emulator: emulator, environment: env)
                    #expect(before.trimmedStdout == "Authorization: Bearer arcgis-token", "\(before.stderr)")
                    let index = try String(contentsOfFile: try indexFile(keyring), encoding: .utf8)
                    #expect(index.split(separator: "\n").contains { $0.hasPrefix("has:") && $0.hasSuffix(" 0") })

                    let signIn = try await CLI.portalAuth(
                        ["login", "--config", config], emulator: emulator,
                        environment: scriptedBrowser(emulator).merging(env) { $1 })
                    #expect(signIn.status == 0, "\(signIn.stderr)")
                    let after = try await CLI.portalAuth(
                        ["token", proxied, "--format", "header"], emulator: emulator, environment: env)
                    #expect(after.status == 0, "\(after.stderr)")
                    #expect(after.stdout.contains("Authorization: Bearer ey"), "\(after.stdout)")
                    #expect(after.stdout.contains("X-Esri-Authorization: Bearer arcgis-token"), "\(after.stdout)")
                }
            }
        }
    }
}
