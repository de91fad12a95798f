// exec and a secret file that rotates: the command cannot tell portal-auth that its token was
// refused, so a changed file is a sign-in at once.
import PortalAuth
import PortalAuthEnvironment
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The environment's credential the command's manager signs in with, when it is the
/// environment's (set by ``GlobalOptions/managerAndTarget(_:transport:storedAccount:naming:)``).
let environmentCredentialsInUse = Mutex<EnvironmentCredentials?>(nil)

extension EnvironmentCredentials {
    /// The environment's credential the command's manager signs in with (nil: not the environment's).
    static var inUse: EnvironmentCredentials? { environmentCredentialsInUse.withLock { $0 } }
}

extension LiveCredentials {
    /// How often `exec` looks at a secret file for a rotation: one `stat` each time.
    static let rotationCheckInterval = Duration.seconds(1)

    /// Until cancelled, looks at `secret`'s file every ``rotationCheckInterval``; when the secret
    /// in it changed, forgets the manager's sign-in, signs in with the new secret at once (an API
    /// key is the token itself: the manager's ``AuthenticationManager/apiKeySource`` reads it) and
    /// rewrites the header file. A rotated file that is refused, or a sign-in that fails, is said
    /// on stderr once per change; the command keeps the token it has.
    func keepRotated(
        _ environment: EnvironmentCredentials, in folder: PrivateFolder, manager: AuthenticationManager
    ) async {
        let secret = environment.source.secret
        var lastWarning: String?
        while !Task.isCancelled {
            do { try await Task.sleep(for: Self.rotationCheckInterval) } catch { return }
            do {
                if let key = manager.apiKeySource {
                    guard try key.refresh() else { continue }
                } else {
                    guard try secret.refresh() else { continue }
                    let store = manager.arcGISCredentialStore
                    for credential in try await store.allCredentials() { _ = try await store.forget(credential.scope) }
                    // Signed in to the portal as at the start (its handler reads the new secret).
                    _ = try await manager.credential(for: URL(string: environment.portal.url)!, interactive: true)
                }
                let next = try await Self.fetch(for: target, manager: manager, interactive: false)
                try folder.write(next.headerFile, to: Self.headerFileName)
                lastWarning = nil
            } catch let error as PortalAuthError {
                guard error.cliMessage != lastWarning else { continue }
                lastWarning = error.cliMessage
                printWarning("the rotated secret cannot be used (\(error.cliMessage)); the command keeps its token")
            } catch {
                printWarning("the rotated secret cannot be used (\(error)); the command keeps its token")
            }
        }
    }
}
