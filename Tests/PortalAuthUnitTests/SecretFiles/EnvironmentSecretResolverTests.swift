import Foundation
import Testing

@testable import PortalAuth

/// Where the environment's secrets come from: a variable, its `_FILE`, or systemd's credentials
/// folder; two at once is an error, and a misspelled credential is refused (#39 item 1).
@Suite struct EnvironmentSecretResolverTests {
    private func resolver(_ variables: [String: String]) -> EnvironmentSecretResolver {
        EnvironmentSecretResolver { variables[$0] }
    }

    @Test func theVariableItselfOrItsFile() throws {
        let folder = SecretFolder()
        let file = folder.write("password", "from-file\n")
        let fromVariable = resolver(["ARCGIS_PASSWORD": "from-variable"])
        #expect(try fromVariable.origin(of: "ARCGIS_PASSWORD") == .variable(name: "ARCGIS_PASSWORD"))
        let fromFile = resolver(["ARCGIS_PASSWORD_FILE": file])
        let origin = try #require(try fromFile.origin(of: "ARCGIS_PASSWORD"))
        #expect(origin == .file(SecretFile(path: file), variable: "ARCGIS_PASSWORD_FILE"))
        #expect(try fromFile.secret(from: origin) == "from-file")
        #expect(try resolver(["ARCGIS_PASSWORD": ""]).origin(of: "ARCGIS_PASSWORD") == nil)
    }

    @Test func aVariableAndItsFileTogetherAreAnError() throws {
        let folder = SecretFolder()
        let both = resolver(["ARCGIS_PASSWORD": "x", "ARCGIS_PASSWORD_FILE": folder.write("p", "y")])
        let error = try #require(throws: PortalAuthError.self) { try both.origin(of: "ARCGIS_PASSWORD") }
        #expect(error.remedy == .fixEnvironment(variables: ["ARCGIS_PASSWORD", "ARCGIS_PASSWORD_FILE"]))
    }

    @Test func aSystemdCredentialIsNamedAsTheVariable() throws {
        let folder = SecretFolder()
        let file = folder.write("ARCGIS_PASSWORD", "from-systemd\n", mode: 0o400)
        let systemd = resolver(["CREDENTIALS_DIRECTORY": folder.path])
        let origin = try #require(try systemd.origin(of: "ARCGIS_PASSWORD"))
        #expect(origin == .credential(SecretFile(path: file), name: "ARCGIS_PASSWORD"))
        #expect(origin.description == "$CREDENTIALS_DIRECTORY/ARCGIS_PASSWORD")
        #expect(try systemd.secret(from: origin) == "from-systemd")
        #expect(try systemd.origin(of: "ARCGIS_SECRET") == nil)
        let twice = resolver(["CREDENTIALS_DIRECTORY": folder.path, "ARCGIS_PASSWORD_FILE": file])
        #expect(throws: PortalAuthError.self) { try twice.origin(of: "ARCGIS_PASSWORD") }
    }

    @Test(arguments: [
        "arcgis_password", "ARCGIS-PASSWORD", "ARCGIS_PASSWORD.txt", "ARCGIS_PASSWORD_FILE", "Arcgis.Password",
    ])
    func anotherSpellingInTheCredentialsFolderIsRefusedNamingTheRightOne(name: String) throws {
        let folder = SecretFolder()
        let file = folder.write(name, "s3cret")
        let systemd = resolver(["CREDENTIALS_DIRECTORY": folder.path])
        let names = ["ARCGIS_SECRET", "ARCGIS_PASSWORD", "ARCGIS_API_KEY"]
        let error = try #require(throws: PortalAuthError.self) { try systemd.checkCredentialsDirectory(names: names) }
        #expect(error.remedy == .fixSecretFile(path: file, problem: .misnamed(expected: "ARCGIS_PASSWORD")))
        #expect(error.message.contains(file) && error.message.contains("ARCGIS_PASSWORD"))
    }

    @Test func theCredentialsFolderOtherFilesAreLeftAlone() throws {
        let folder = SecretFolder()
        folder.write("db-password", "x")
        folder.write("ARCGIS_PASSWORD", "y")
        let systemd = resolver(["CREDENTIALS_DIRECTORY": folder.path])
        try systemd.checkCredentialsDirectory(names: ["ARCGIS_PASSWORD"])
    }
}
