import Foundation
import Testing

@testable import PortalAuth

/// An API key read from a file that rotates keeps its scope and takes the file's key (#39), and a
/// rotated file that breaks a rule is not read again until it changes.
@Suite struct RotatingAPIKeyTests {
    /// A key for a portal with one service and one host, read from `path`.
    private func rotatingKey(_ path: String) throws -> RotatingAPIKey {
        let secret = try RotatingSecret(origin: .file(SecretFile(path: path), variable: "ARCGIS_API_KEY_FILE"))
        let credential = try APIKeyCredential(
            apiKey: secret.secret, portalURL: URL(string: "https://gis.example.com/portal")!,
            hosts: ["tiles.example.com"],
            serviceURLs: [URL(string: "https://geocode.example.com/arcgis/rest/services/World/GeocodeServer")!])
        return RotatingAPIKey(credential, secret: secret)
    }

    @Test func theKubeletsSwapGivesTheNewKeyWithTheSameScope() throws {
        let volume = KubeletVolume()
        volume.project(["api-key": "AAPTfirstKey\n"])
        let key = try rotatingKey(volume.path + "/api-key")
        let first = key.credential
        #expect(try !key.refresh())
        volume.project(["api-key": "AAPTsecondKey\n"])
        #expect(try key.refresh())
        #expect(key.credential.tokenInfo.accessToken == "AAPTsecondKey")
        #expect(key.credential.portal == first.portal && key.credential.hosts == first.hosts)
        #expect(key.credential.serviceContexts == first.serviceContexts)
        #expect(try !key.refresh())
    }

    @Test func aManagerPresentsTheKeyItsFileHoldsNow() throws {
        let folder = SecretFolder()
        let path = folder.write("api-key", "AAPTfirstKey")
        let manager = AuthenticationManager(backend: MemoryCredentialBackend(), transport: NoNetworkTransport())
        manager.apiKeySource = try rotatingKey(path)
        let geocode = URL(string: "https://geocode.example.com/arcgis/rest/services/World/GeocodeServer/find")!
        #expect(try manager.apiKeyForUse(geocode)?.tokenInfo.accessToken == "AAPTfirstKey")
        folder.write(".api-key.tmp", "AAPTsecondKey\n")
        #expect(rename(folder.path + "/.api-key.tmp", path) == 0)
        #expect(try manager.apiKeyForUse(geocode)?.tokenInfo.accessToken == "AAPTsecondKey")
        #expect(manager.apiKey?.tokenInfo.accessToken == "AAPTsecondKey")
        #expect(try manager.apiKeyForUse(URL(string: "https://elsewhere.example.com/x")!) == nil)
        // Setting a key ends the file's.
        manager.apiKey = nil
        #expect(manager.apiKeySource == nil && manager.apiKey == nil)
    }

    @Test func aRotatedFileThatBreaksARuleKeepsTheLastKeyAndIsNotReadAgainUntilItChanges() throws {
        let folder = SecretFolder()
        let path = folder.write("api-key", "AAPTfirstKey")
        let key = try rotatingKey(path)
        folder.write(".api-key.tmp", "AAPTsecondKey\n")
        chmod(folder.path + "/.api-key.tmp", 0o644)
        #expect(rename(folder.path + "/.api-key.tmp", path) == 0)
        #expect(throws: PortalAuthError.self) { try key.refresh(now: .max) }
        #expect(key.credential.tokenInfo.accessToken == "AAPTfirstKey")
        // Unreadable now, the same file answers the same refusal without being read.
        chmod(path, 0o000)
        if geteuid() != 0 {
            #expect(throws: PortalAuthError.self) { try key.refresh(now: .max) }
        }
        chmod(path, 0o600)  // (a change: read again, and accepted)
        #expect(try key.refresh(now: .max))
        #expect(key.credential.tokenInfo.accessToken == "AAPTsecondKey")
    }

    @Test func aKeyWithWhiteSpaceInsideIsRefusedAndTheLastKeyStays() throws {
        let folder = SecretFolder()
        let path = folder.write("api-key", "AAPTfirstKey")
        let key = try rotatingKey(path)
        folder.write(".api-key.tmp", "AAPT two keys\n")
        #expect(rename(folder.path + "/.api-key.tmp", path) == 0)
        #expect(throws: PortalAuthError.self) { try key.refresh() }
        #expect(key.credential.tokenInfo.accessToken == "AAPTfirstKey")
    }
}

/// No Secret Service on the bus, told by the keyring's own error: the headless store's cue (#39).
@Suite struct DefaultStoreBackendTests {
    private func keyringError(_ code: Int32, domain: String = "g-dbus-error-quark") -> PortalAuthError {
        PortalAuthError(
            .keyringUnavailable, "no Secret Service on the D-Bus session bus", remedy: .startSecretService,
            cause: .gError(domain: domain, code: code, message: "m"))
    }

    @Test func serviceUnknownNoOwnerAndFailedActivationMeanNoSecretService() {
        for code: Int32 in [2, 3, 23, 25, 31, 34] {
            #expect(DefaultStoreBackend.saysNoSecretService(keyringError(code)), "\(code)")
        }
    }

    @Test func aSlowDeniedOrLockedKeyringIsNoReasonForAnotherStore() {
        // NoReply, AccessDenied, Timeout, TimedOut, Failed; an I/O error; a locked collection.
        for code: Int32 in [0, 4, 9, 12, 20] {
            #expect(!DefaultStoreBackend.saysNoSecretService(keyringError(code)), "\(code)")
        }
        #expect(!DefaultStoreBackend.saysNoSecretService(keyringError(2, domain: "g-io-error-quark")))
        #expect(
            !DefaultStoreBackend.saysNoSecretService(
                PortalAuthError(.keyringLocked, "the keyring's default collection is locked", remedy: .unlockKeyring)))
    }
}
