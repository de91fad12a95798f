import Foundation
import Testing

@testable import PortalAuth

/// A private folder for one test (0700, under the system's temporary folder).
private func privateFolder() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("pa-lock-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(
        atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    return path
}

private let nobody: uid_t = 65_534

/// The lock folder another local user could have prepared is refused, never used.
@Suite struct LockFolderTests {
    @Test func aMissingFolderIsCreatedPrivateAndTheLockFileToo() throws {
        let base = try privateFolder()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let (fd, path) = try CrossProcessLock.openLockFile(for: "k", in: base + "/portal-auth/locks")
        close(fd)
        for folder in [base + "/portal-auth", base + "/portal-auth/locks"] {
            let mode = try FileManager.default.attributesOfItem(atPath: folder)[.posixPermissions] as? NSNumber
            #expect(mode?.intValue == 0o700)
        }
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
    }

    @Test func aFolderOthersMayEnterIsRefused() throws {
        let base = try privateFolder()
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createDirectory(
            atPath: base + "/portal-auth/locks", withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o777])
        chmod(base + "/portal-auth", 0o700)
        chmod(base + "/portal-auth/locks", 0o777)
        let error = #expect(throws: PortalAuthError.self) {
            try CrossProcessLock.openLockFile(for: "k", in: base + "/portal-auth/locks")
        }
        #expect(error?.code == .storeFailure)
        #expect(error?.remedy == .makePrivate(path: base + "/portal-auth/locks"))
        #expect(
            !FileManager.default.fileExists(atPath: base + "/portal-auth/locks/" + CrossProcessLock.fileName(for: "k")))
    }

    @Test func aStickyFolderEveryoneMayWriteToIsReportedWithItsWholeMode() throws {
        let base = try privateFolder()
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createDirectory(
            atPath: base + "/portal-auth/locks", withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        chmod(base + "/portal-auth/locks", 0o1777)
        let error = #expect(throws: PortalAuthError.self) {
            try CrossProcessLock.openLockFile(for: "k", in: base + "/portal-auth/locks")
        }
        #expect(error?.message.contains("has mode 1777") == true, "\(error?.message ?? "")")
        #expect(error?.remedy == .makePrivate(path: base + "/portal-auth/locks"))
        chmod(base + "/portal-auth/locks", 0o2750)
        let setgid = #expect(throws: PortalAuthError.self) {
            try CrossProcessLock.openLockFile(for: "k", in: base + "/portal-auth/locks")
        }
        #expect(setgid?.message.contains("has mode 2750") == true, "\(setgid?.message ?? "")")
    }

    @Test func aSymbolicLinkInPlaceOfTheFolderIsRefused() throws {
        let base = try privateFolder()
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createDirectory(
            atPath: base + "/elsewhere", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.createDirectory(
            atPath: base + "/portal-auth", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        symlink(base + "/elsewhere", base + "/portal-auth/locks")
        let error = #expect(throws: PortalAuthError.self) {
            try CrossProcessLock.openLockFile(for: "k", in: base + "/portal-auth/locks")
        }
        #expect(error?.code == .storeFailure)
        #expect(error?.message.contains("is not a folder") == true)
        #expect(error?.remedy == .useOwnFolder(path: base + "/portal-auth/locks"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: base + "/elsewhere").isEmpty)
    }

    @Test func aSymbolicLinkInPlaceOfTheLockFileIsNotFollowed() throws {
        let base = try privateFolder()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let locks = base + "/portal-auth/locks"
        try FileManager.default.createDirectory(
            atPath: locks, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        symlink(base + "/target", locks + "/" + CrossProcessLock.fileName(for: "k"))
        #expect(throws: PortalAuthError.self) { try CrossProcessLock.openLockFile(for: "k", in: locks) }
        #expect(!FileManager.default.fileExists(atPath: base + "/target"))
    }

    @Test(.enabled(if: geteuid() == 0, "only root can give a folder to another user"))
    func aFolderOfAnotherUserIsRefused() throws {
        let base = try privateFolder()
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createDirectory(
            atPath: base + "/portal-auth/locks", withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        chmod(base + "/portal-auth", 0o700)
        #expect(chown(base + "/portal-auth", nobody, gid_t(nobody)) == 0)
        let error = #expect(throws: PortalAuthError.self) {
            try CrossProcessLock.openLockFile(for: "k", in: base + "/portal-auth/locks")
        }
        #expect(error?.code == .storeFailure)
        #expect(error?.message.contains("belongs to user id \(nobody)") == true)
        #expect(error?.remedy == .useOwnFolder(path: base + "/portal-auth"))
    }
}

/// The file store's folder must be this user's and not writable by others.
@Suite struct FileStoreFolderTests {
    @Test func aFolderOthersMayWriteToIsRefused() throws {
        let base = try privateFolder()
        defer { try? FileManager.default.removeItem(atPath: base) }
        chmod(base, 0o777)
        let backend = FileCredentialBackend(path: base + "/credentials.json")
        let error = #expect(throws: PortalAuthError.self) {
            try backend.store(
                CredentialAttributes(store: "arcgis", server: "https://h/portal", kind: "token"), secret: "s")
        }
        #expect(error?.code == .storeFailure)
        #expect(error?.remedy == .makePrivate(path: base))
        #expect(!FileManager.default.fileExists(atPath: base + "/credentials.json"))
        #expect(throws: PortalAuthError.self) { try backend.lookup(CredentialQuery(server: "https://h/portal")) }
    }

    @Test func aStickyFolderEveryoneMayWriteToIsReportedWithItsWholeMode() throws {
        let base = try privateFolder()
        defer { try? FileManager.default.removeItem(atPath: base) }
        chmod(base, 0o1777)
        let backend = FileCredentialBackend(path: base + "/credentials.json")
        let error = #expect(throws: PortalAuthError.self) {
            try backend.store(
                CredentialAttributes(store: "arcgis", server: "https://h/portal", kind: "token"), secret: "s")
        }
        #expect(error?.message.contains("has mode 1777") == true, "\(error?.message ?? "")")
        #expect(error?.remedy == .makePrivate(path: base))
    }

    @Test(.enabled(if: geteuid() == 0, "only root can give a folder to another user"))
    func aFolderOfAnotherUserIsRefused() throws {
        let base = try privateFolder()
        defer { try? FileManager.default.removeItem(atPath: base) }
        #expect(chown(base, nobody, gid_t(nobody)) == 0)
        let backend = FileCredentialBackend(path: base + "/credentials.json")
        let error = #expect(throws: PortalAuthError.self) {
            try backend.store(
                CredentialAttributes(store: "arcgis", server: "https://h/portal", kind: "token"), secret: "s")
        }
        #expect(error?.code == .storeFailure)
        #expect(error?.message.contains("belongs to user id \(nobody)") == true)
        #expect(error?.remedy == .useOwnFolder(path: base))
    }
}

/// A Secret Service that does not answer in time is slow, not missing.
@Suite struct KeyringTimeoutClassificationTests {
    @Test func dBusTimeOutsAndNoReplyAreTimeOuts() {
        #expect(KeyringCredentialBackend.isTimeout(domain: "g-io-error-quark", code: 24))
        #expect(KeyringCredentialBackend.isTimeout(domain: "g-dbus-error-quark", code: 4))
        #expect(KeyringCredentialBackend.isTimeout(domain: "g-dbus-error-quark", code: 12))
        #expect(KeyringCredentialBackend.isTimeout(domain: "g-dbus-error-quark", code: 20))
        // ServiceUnknown, NameHasNoOwner, a refused connection: missing, not slow.
        #expect(!KeyringCredentialBackend.isTimeout(domain: "g-dbus-error-quark", code: 2))
        #expect(!KeyringCredentialBackend.isTimeout(domain: "g-dbus-error-quark", code: 3))
        #expect(!KeyringCredentialBackend.isTimeout(domain: "g-io-error-quark", code: 39))
    }

    @Test func aSlowServiceIsReportedAsSlowWithTryAgain() {
        let error = KeyringCredentialBackend.slow(
            "read a credential", domain: "g-io-error-quark", code: 24, message: "Timeout was reached")
        #expect(error.code == .timedOut)
        #expect(error.message.contains("did not read a credential in time"))
        #expect(error.remedy == .retryLater)
        #expect(!error.message.contains("no Secret Service"))
    }
}
