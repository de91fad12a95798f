import Foundation
import Testing

@testable import PortalAuth

/// A secret from a file is read again when the file is rotated, each way the engines rotate it,
/// and never half-written (#39 item 2).
@Suite struct RotatingSecretTests {
    private func rotating(_ path: String) throws -> RotatingSecret {
        try RotatingSecret(origin: .file(SecretFile(path: path), variable: "ARCGIS_PASSWORD_FILE"))
    }

    @Test func theKubeletsDataSwapIsPickedUp() throws {
        let volume = KubeletVolume()
        volume.project(["password": "first\n", "username": "alice\n"])
        let secret = try rotating(volume.path + "/password")
        #expect(secret.secret == "first")
        #expect(try !secret.refresh())
        volume.project(["password": "second\n", "username": "alice\n"])
        #expect(try secret.refresh())
        #expect(secret.secret == "second")
        #expect(try !secret.refresh())
    }

    @Test func aRenameOverTheFileIsPickedUp() throws {
        // Vault Agent (and the CSI driver) write a temporary file and rename it over the old one.
        let folder = SecretFolder()
        let path = folder.write("password", "first")
        let secret = try rotating(path)
        folder.write(".password.tmp", "second\n")
        #expect(rename(folder.path + "/.password.tmp", path) == 0)
        #expect(try secret.refresh())
        #expect(secret.secret == "second")
    }

    @Test func anEditInPlaceIsReadOnceItIsLeftAlone() throws {
        let folder = SecretFolder()
        let path = folder.write("password", "first-password")
        let secret = try rotating(path)
        // The writer truncated the file and wrote half of the new secret when the reader looks.
        let descriptor = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
        #expect(Glibc.write(descriptor, "second", 6) == 6)
        let halfWritten = try #require(SecretFileStamp.of(path))
        #expect(try !secret.refresh(now: halfWritten.changed + RotatingSecret.settleTime / 5))
        #expect(secret.secret == "first-password")
        #expect(Glibc.write(descriptor, "-password\n", 10) == 10)
        close(descriptor)
        let written = try #require(SecretFileStamp.of(path))
        #expect(try !secret.refresh(now: written.changed + RotatingSecret.settleTime / 5))
        #expect(try secret.refresh(now: written.changed + RotatingSecret.settleTime))
        #expect(secret.secret == "second-password")
    }

    @Test func aFileGoneForAMomentKeepsTheLastSecret() throws {
        let folder = SecretFolder()
        let path = folder.write("password", "first")
        let secret = try rotating(path)
        #expect(unlink(path) == 0)
        #expect(try !secret.refresh())
        #expect(secret.secret == "first")
    }

    @Test func aRotatedFileThatBreaksARuleIsRefusedAndTheLastSecretStays() throws {
        let folder = SecretFolder()
        let path = folder.write("password", "first")
        let secret = try rotating(path)
        folder.write(".tmp", "second", mode: 0o644)
        #expect(rename(folder.path + "/.tmp", path) == 0)
        #expect(throws: PortalAuthError.self) { try secret.refresh() }
        #expect(secret.secret == "first")
    }
}
