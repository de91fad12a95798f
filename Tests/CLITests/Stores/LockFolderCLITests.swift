import Foundation
import PortalEmulator
import TestSupport
import Testing

/// Where portal-auth keeps its lock files (and the keyring index) without a private
/// `XDG_RUNTIME_DIR`: in this user's cache folder, which no other user can create first, never
/// under a name in /tmp. Each test runs portal-auth with a home folder of its own.
@Suite struct LockFolderCLITests {
    /// Signs a token in for a URL of the emulator and reads it back, with the keyring on a private
    /// bus and `environment`, without XDG_RUNTIME_DIR unless `environment` sets it; both must succeed.
    func signInAndRead(
        _ emulator: PortalEmulator, keyring: PrivateKeyring, environment: [String: String]
    ) async throws {
        let url = emulator.baseURL + "/lock-folder"
        let token = "token-\(UUID().uuidString)"
        let env = ["DBUS_SESSION_BUS_ADDRESS": keyring.address].merging(environment) { $1 }
        let removing = ["XDG_RUNTIME_DIR", "XDG_CACHE_HOME"].filter { environment[$0] == nil }
        let login = try await CLI.portalAuth(
            ["login", "--url", url, "--token-stdin", "--unchecked", "--expires-in", "3600"], emulator: emulator,
            stdin: token,
            environment: env, removing: removing)
        #expect(login.status == 0, "\(login.stderr)")
        let read = try await CLI.portalAuth(
            ["token", url], emulator: emulator, environment: env, removing: removing)
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == token)
    }

    /// The mode of `path` (permission bits, sticky and set-id bits included), nil when it is missing.
    func mode(_ path: String) -> Int? {
        // (FileManager reads it with lstat; its permissions keep the sticky and set-id bits.)
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeDirectory
        else { return nil }
        return (attributes[.posixPermissions] as? NSNumber)?.intValue
    }

    /// The lock files in `folder`.
    func lockFiles(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".lock") }
    }

    @Test func withoutXDGRuntimeDirTheLocksAreInTheHomeCacheFolderMadePrivate() async throws {
        try await withEmulator { emulator in
            try await withPrivateKeyring { keyring in
                try await withTemporaryDirectory("lock-home") { home in
                    try await signInAndRead(emulator, keyring: keyring, environment: ["HOME": home])
                    for folder in [home + "/.cache", home + "/.cache/portal-auth", home + "/.cache/portal-auth/locks"] {
                        #expect(mode(folder) == 0o700, "\(folder) is missing or not 0700")
                    }
                    #expect(!lockFiles(home + "/.cache/portal-auth/locks").isEmpty)
                    #expect(lockFiles(keyring.directory + "/portal-auth/locks").isEmpty, "not the runtime folder")
                }
            }
        }
    }

    @Test func xdgCacheHomeIsUsedAndARuntimeFolderOthersMayEnterIsNot() async throws {
        try await withEmulator { emulator in
            try await withPrivateKeyring { keyring in
                try await withTemporaryDirectory("lock-cache") { base in
                    let shared = base + "/shared-runtime"
                    try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false)
                    chmod(shared, 0o1777)
                    try await signInAndRead(
                        emulator, keyring: keyring,
                        environment: [
                            "HOME": base + "/home", "XDG_CACHE_HOME": base + "/cache", "XDG_RUNTIME_DIR": shared,
                        ])
                    #expect(mode(base + "/cache/portal-auth/locks") == 0o700)
                    #expect(!lockFiles(base + "/cache/portal-auth/locks").isEmpty)
                    #expect(!FileManager.default.fileExists(atPath: shared + "/portal-auth"), "a 1777 runtime folder")
                    #expect(!FileManager.default.fileExists(atPath: base + "/home"), "XDG_CACHE_HOME, not HOME")
                }
            }
        }
    }

    @Test(.enabled(if: geteuid() == 0, "only root can give a folder to another user"))
    func aFolderAnotherUserMadeInTmpUnderTheOldNameChangesNothing() async throws {
        // The name every portal-auth of this user used to take in /tmp, made first by "nobody".
        // (One left by an earlier version of this user's is put aside for the test, and back after.)
        let squatted = "/tmp/portal-auth-\(getuid())"
        let aside = squatted + ".aside-\(UUID().uuidString)"
        let hadOne = rename(squatted, aside) == 0
        try FileManager.default.createDirectory(
            atPath: squatted + "/locks", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        #expect(chown(squatted + "/locks", 65_534, 65_534) == 0 && chown(squatted, 65_534, 65_534) == 0)
        defer {
            try? FileManager.default.removeItem(atPath: squatted)
            if hadOne { rename(aside, squatted) }
        }
        let owner = try FileManager.default.attributesOfItem(atPath: squatted)[.ownerAccountID] as? NSNumber
        try #require(owner?.uint32Value != getuid(), "\(squatted) is this user's: cannot play another user here")
        try await withEmulator { emulator in
            try await withPrivateKeyring { keyring in
                try await withTemporaryDirectory("lock-squat") { home in
                    try await signInAndRead(emulator, keyring: keyring, environment: ["HOME": home])
                    #expect(!lockFiles(home + "/.cache/portal-auth/locks").isEmpty)
                }
            }
        }
    }
}
