import PortalAuth
import PortalAuthPregeneratedToken

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `login --url URL --token-stdin`: a token made elsewhere, stored once its server accepted it.
extension Login {
    func loginWithPregeneratedToken() async throws {
        let target = try PortalURLInput.read(place.url ?? place.portal!, doing: "signing in to")
        let manager = try global.makeManager()
        try manager.arcGISCredentialStore.backend.checkAvailable()
        let token = try readSecretFromStdin(what: "token", flag: "--token-stdin")
        let credential = try PregeneratedTokenCredential(
            url: target, token: token, expiresIn: pregenerated.expiresIn.map(Double.init), referer: credentials.referer,
            username: credentials.username)
        // Only a token the server accepts replaces what is stored (and the former one's server tokens).
        if !pregenerated.unchecked { try await credential.checkAccepted(using: manager.services) }
        try await manager.arcGISCredentialStore.commit(credential, origin: .replacement)
        output(
            "Stored a pregenerated token for "
                + "\(credential.serverContext)\(credential.tokenInfo.expirationDate.map { "; it expires \($0.iso8601)" } ?? " with no expiry") (in \(manager.arcGISCredentialStore.backend.name))."
        )
    }
}
