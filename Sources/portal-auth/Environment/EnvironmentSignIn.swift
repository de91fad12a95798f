import Logging
import PortalAuth
import PortalAuthOAuthApplication
import PortalAuthToken
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Answers the ArcGIS challenges of the environment's portal (and of the servers federated with
/// it, whose challenges name the portal) with the environment's credentials, in a manager whose
/// store is memory: nothing is written anywhere.
struct EnvironmentSignInHandler: AuthenticationChallengeHandler {
    let credentials: EnvironmentCredentials

    /// What the environment's sign-ins make.
    var arcGISCredentialTypes: [any ArcGISCredential.Type] {
        [TokenCredential.self, OAuthApplicationCredential.self]
    }

    /// ArcGIS challenges for the environment's portal.
    func canHandle(_ challenge: AuthenticationChallenge) -> Bool {
        guard case .arcGIS(let arcGIS) = challenge else { return false }
        return credentials.isPortal(arcGIS.serverContext)
    }

    /// Signs in as the environment says: a password at the token service, or the app's client
    /// credentials at `oauth2/token`. Both renew themselves in this process when they expire.
    func handle(
        _ challenge: AuthenticationChallenge, services: AuthenticationServices
    ) async throws -> AuthenticationChallenge.Disposition {
        // A secret from a file is read again if the file changed (a rotation) since last read.
        try credentials.source.secret.refresh()
        do {
            return try await signIn(challenge, services: services)
        } catch let error as PortalAuthError where error.code == .authenticationFailed {
            // Refused: the file may have been rotated a moment ago (read it now, settled or not).
            if try credentials.source.secret.refresh(now: .max) {
                if let retried = try? await signIn(challenge, services: services) { return retried }
            }
            // Signing in again with login would not help: the variables are what to fix.
            let variables = credentials.source.variables
            throw PortalAuthError(
                .authenticationFailed,
                "\(credentials.portal) refused the credentials in \(variables.joined(separator: " and "))",
                remedy: .fixEnvironment(variables: variables), cause: error.cause)
        }
    }

    /// Signs in with the environment's credential.
    private func signIn(
        _ challenge: AuthenticationChallenge, services: AuthenticationServices
    ) async throws -> AuthenticationChallenge.Disposition {
        switch credentials.source {
        case .password(let username, let password):
            let provider = StaticUsernamePasswordProvider(username: username, password: password.secret)
            // (No password kept in the token: it renews through EnvironmentRenewal, from the file as it is now.)
            return try await TokenAuthenticationHandler(provider: provider, keepPassword: false).handle(
                challenge, services: services)
        case .clientCredentials(let clientID, let clientSecret):
            let credential = try await OAuthApplicationCredential.credential(
                for: credentials.portal, clientID: clientID, clientSecret: clientSecret.secret, services: services)
            return .continueWithCredential(.arcGIS(credential))
        case .apiKey:
            // The key was in the store from the start: asked again, the server refused it.
            throw PortalAuthError(
                .authenticationFailed,
                "\(credentials.portal) refused the API key in \(credentials.source.variables[0])",
                remedy: .fixEnvironment(variables: credentials.source.variables))
        }
    }
}

extension EnvironmentCredentials {
    /// What names the API key in use (`ARCGIS_API_KEY`, `ARCGIS_API_KEY_FILE` or the systemd
    /// credential), for the remedy of a refused key.
    static var apiKeyOrigin: String {
        guard let inUse, case .apiKey(let secret) = inUse.source else { return "ARCGIS_API_KEY" }
        return secret.origin.description
    }

    /// Whether `context` is the environment's portal (as `ARCGIS_HOST` names it: ArcGIS Online's
    /// www.arcgis.com and an organization's URL are two portals here).
    func isPortal(_ context: ServerContext) -> Bool { context == portal }

    /// Whether the environment's credential is for `url`: a URL of the portal, or of an ArcGIS
    /// Server that names the portal as its owner (`rest/info`). Whether that server is federated
    /// is still the portal's word, as the manager decides it (a server token the portal issues,
    /// or its list of servers); an unreadable `rest/info` is no claim.
    func covers(_ url: URL, transport: any HTTPTransport) async -> Bool {
        guard url.scheme?.lowercased() == "https" else { return false }
        guard let root = ServerContext.arcGISServerRoot(of: url) else {
            guard let context = try? ServerContext(url: url) else { return false }
            return isPortal(context) || portal.contains(url)
        }
        let services = AuthenticationServices(transport: transport, logger: Logger(label: "portal-auth"))
        guard let info = try? await services.getJSON(URL(string: root.url + "/rest/info")!),
            let owner = info["owningSystemUrl"]?.stringValue.flatMap(URL.init(string:)),
            let context = try? ServerContext(url: owner)
        else { return false }
        return isPortal(context)
    }

    /// The API key of `ARCGIS_API_KEY` (or its file) for the portal, with the helper services
    /// `portals/self` lists (read with the key: a refused key is known now), as the manager
    /// presents it: from a file, read again when the file changes (``RotatingAPIKey``); nil for the
    /// other sources. Kept in memory.
    func apiKeySource(transport: any HTTPTransport) async throws -> RotatingAPIKey? {
        guard case .apiKey(let secret) = source else { return nil }
        let key = secret.secret
        let services = AuthenticationServices(transport: transport, logger: Logger(label: "portal-auth"))
        do {
            let credential = try await APIKeyCredential.credential(
                apiKey: key, portalURL: URL(string: portal.url)!, services: services)
            return RotatingAPIKey(credential, secret: secret)
        } catch let error as PortalAuthError {
            throw error.fromEnvironmentKey(named: secret.origin.description)
        }
    }

    /// What `doctor` and `status` say of the environment: the variables and the portal, or why
    /// they cannot be used; nil when no credential variable is set.
    static func report() -> String? {
        do {
            return try read()?.summary
        } catch let error as PortalAuthError {
            return "the environment's credential cannot be used: \(error.cliMessage)"
        } catch {
            return "the environment's credential cannot be used: \(error)"
        }
    }
}

/// Whether this process presents the API key of `ARCGIS_API_KEY`: a refused key is then the
/// variable's to fix, not one to store.
let environmentAPIKeyInUse = Atomic<Bool>(false)

extension PortalAuthError {
    /// This error with the remedy it has when the API key came from `ARCGIS_API_KEY` (or its
    /// file, `name`): the variable is what to fix (storing a key would not replace it).
    func fromEnvironmentKey(named name: String = EnvironmentCredentials.apiKeyOrigin) -> PortalAuthError {
        guard case .storeAPIKey = remedy else { return self }
        var error = self
        error.remedy = .fixEnvironment(variables: [name])
        return error
    }
}
