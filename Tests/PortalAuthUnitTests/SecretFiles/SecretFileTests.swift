import Foundation
import Testing

@testable import PortalAuth

/// Every rule a secret file follows (#39 item 1), on real files in a temporary folder.
@Suite struct SecretFileTests {
    @Test func aPrivateFileLosesOneTrailingNewlineAndNothingElse() throws {
        let folder = SecretFolder()
        #expect(try SecretFile(path: folder.write("a", "s3cret\n")).read().secret == "s3cret")
        #expect(try SecretFile(path: folder.write("b", "s3cret")).read().secret == "s3cret")
        #expect(try SecretFile(path: folder.write("c", "s3cret\n\n")).read().secret == "s3cret\n")
        #expect(try SecretFile(path: folder.write("d", " s3 cret\r\n")).read().secret == " s3 cret\r")
    }

    @Test func anEmptyFileIsRefused() {
        let folder = SecretFolder()
        #expect(SecretFolder.problem(reading: folder.write("empty", "")) == .empty)
        #expect(SecretFolder.problem(reading: folder.write("newline", "\n")) == .empty)
    }

    @Test func aMissingFileIsRefused() {
        let folder = SecretFolder()
        #expect(SecretFolder.problem(reading: folder.path + "/nothing") == .missing)
        #expect(SecretFolder.problem(reading: folder.path + "/nothing/below") == .missing)
        // A link to nothing (a key whose ..data folder is gone).
        #expect(SecretFolder.problem(reading: folder.link("dangling", to: "..data/password")) == .missing)
    }

    @Test(arguments: [0o640, 0o604, 0o620, 0o602, 0o660, 0o644, 0o610])
    func aFileOthersMayReadOrChangeIsRefused(mode: Int) {
        let folder = SecretFolder()
        let file = folder.write("loose", "s3cret", mode: mode_t(mode))
        #expect(SecretFolder.problem(reading: file) == .loosePermissions(mode: String(format: "0%o", mode)))
    }

    /// (Giving a file away takes root: the tier runs as root here and in CI's container.)
    @Test(.enabled(if: geteuid() == 0)) func aFileOfAnotherUserIsRefused() {
        let folder = SecretFolder()
        let file = folder.write("theirs", "s3cret")
        #expect(chown(file, 65534, 65534) == 0)
        #expect(SecretFolder.problem(reading: file) == .notOwned(owner: 65534))
    }

    @Test func whatIsNotARegularFileIsRefused() {
        let folder = SecretFolder()
        #expect(SecretFolder.problem(reading: folder.folder("dir")) == .notRegularFile(kind: "a folder"))
        let fifo = folder.path + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        // Opened without blocking: nobody writes to the FIFO.
        #expect(SecretFolder.problem(reading: fifo) == .notRegularFile(kind: "a FIFO"))
        #expect(SecretFolder.problem(reading: "/dev/null") == .notRegularFile(kind: "a device"))
    }

    @Test func aLinkOutOfItsFolderIsRefused() {
        let folder = SecretFolder()
        let outside = SecretFolder()
        let target = outside.write("password", "s3cret")
        let file = folder.link("password", to: target)
        #expect(SecretFolder.problem(reading: file) == .linkOutOfFolder(target: target))
        #expect(
            SecretFolder.problem(
                reading: folder.link("up", to: "../" + (outside.path as NSString).lastPathComponent + "/password"))
                == .linkOutOfFolder(target: target))
    }

    @Test func aLinkInsideItsFolderIsRead() throws {
        let folder = SecretFolder()
        folder.write("real", "s3cret\n")
        #expect(try SecretFile(path: folder.link("password", to: "real")).read().secret == "s3cret")
    }

    @Test func aKubernetesSecretVolumeIsRead() throws {
        let volume = KubeletVolume()
        volume.project(["password": "first\n"])
        #expect(try SecretFile(path: volume.path + "/password").read().secret == "first")
    }

    @Test func aFileLargerThanASecretIsRefused() {
        let folder = SecretFolder()
        let file = folder.write("big", String(repeating: "x", count: SecretFile.maximumSize + 1))
        #expect(SecretFolder.problem(reading: file) == .tooLarge)
        #expect(
            SecretFolder.problem(reading: folder.write("limit", String(repeating: "x", count: SecretFile.maximumSize)))
                == nil)
    }

    @Test func theRefusalIsOneLineNamingTheFileAndTheFix() throws {
        let folder = SecretFolder()
        let file = folder.write("loose", "s3cret", mode: 0o644)
        let error = try #require(throws: PortalAuthError.self) { try SecretFile(path: file).read() }
        #expect(error.code == .invalidConfiguration)
        #expect(error.message == "the secret file \(file) has mode 0644: other users may read or change it")
        #expect(error.remedy.description == "take group's and other users' access to \(file) away")
        #expect(!error.description.contains("s3cret") && !error.description.contains("\n"))
        let missing = try #require(throws: PortalAuthError.self) { try SecretFile(path: folder.path + "/x").read() }
        #expect(missing.code == .secretMissing)
    }
}
