// Which URLs the environment's credential is for, and how a manager presents it.
import Logging
public import PortalAuth

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension EnvironmentCredentials {
    /// Whether `context` is the environment's portal (as `ARCGIS_HOST` names it: ArcGIS Online's
    /// www.arcgis.com and an organization's URL are two portals here).
    public func isPortal(_ context: ServerContext) -> Bool { context == portal }

    /// Presents the credential in `manager` (one made for it: its store is memory and
    /// ``EnvironmentSignInHandler`` is registered): an API key becomes its
    /// ``AuthenticationManager/apiKeySource`` (read with the key: a refused key is known now);
    /// nothing else signs in yet (``covers(_:in:)`` and the first request do).
    public func present(in manager: AuthenticationManager, transport: any HTTPTransport) async throws {
        if let key = try await apiKeySource(transport: transport) { manager.apiKeySource = key }
    }

    /// Signs in to the portal in `manager` now, unless an API key is presented or it already holds
    /// the portal's credential: the sign-in a stored credential would have been, which commands
    /// that never prompt find, and federate or renew from.
    public func signIn(in manager: AuthenticationManager) async throws {
        guard manager.apiKeySource == nil else { return }
        _ = try await manager.credential(for: URL(string: portal.url)!, interactive: true)
    }

    /// Whether the environment's credential, as `manager` presents it, is for `url`; a URL it is
    /// not for is the stored credentials'.
    ///
    /// - An API key: its own scope (the portal and the helper services `portals/self` lists).
    /// - Otherwise an https URL of the portal, or of an ArcGIS Server the portal lists among its
    ///   servers (`portals/self/servers`, read with the environment's credential). A server that
    ///   does not name the portal as its owner (`rest/info`) is not asked about before the
    ///   manager has signed in: naming it is no claim on the portal's credential, only a reason
    ///   to sign in and ask the portal.
    public func covers(_ url: URL, in manager: AuthenticationManager) async throws -> Bool {
        // (A rotated key keeps the first key's scope.)
        if let key = manager.apiKeySource { return ScopedCredential(key.credential).covers(url) }
        guard url.scheme?.lowercased() == "https" else { return false }
        if let context = try? ServerContext(url: url), isPortal(context) || portal.contains(url) { return true }
        guard let root = ServerContext.arcGISServerRoot(of: url) else { return false }
        if try await manager.arcGISCredentialStore.allCredentials().isEmpty {
            guard await namesThePortal(root, services: manager.services) else { return false }
            try await signIn(in: manager)
        }
        return try await manager.isWithinKnownScope(url)
    }

    /// Whether the server at `root` names the portal as its owner (`rest/info`'s `owningSystemUrl`);
    /// an unreadable answer names nothing.
    private func namesThePortal(_ root: ServerContext, services: AuthenticationServices) async -> Bool {
        guard let info = try? await services.getJSON(URL(string: root.url + "/rest/info")!),
            let owner = info["owningSystemUrl"]?.stringValue.flatMap(URL.init(string:)),
            let context = try? ServerContext(url: owner)
        else { return false }
        return isPortal(context)
    }

    /// The API key of `ARCGIS_API_KEY` (or its file) for the portal, with the helper services
    /// `portals/self` lists (read with the key: a refused key is known now), as a manager presents
    /// it: from a file, read again when the file changes (``RotatingAPIKey``); nil for the other
    /// sources. Kept in memory. A refused key's remedy names the variable to fix.
    public func apiKeySource(transport: any HTTPTransport) async throws -> RotatingAPIKey? {
        guard case .apiKey(let secret) = source else { return nil }
        let services = AuthenticationServices(transport: transport, logger: Logger(label: "portal-auth"))
        do {
            let credential = try await APIKeyCredential.credential(
                apiKey: secret.secret, portalURL: URL(string: portal.url)!, services: services)
            return RotatingAPIKey(credential, secret: secret)
        } catch let error as PortalAuthError {
            throw error.fromEnvironmentKey(named: secret.origin.description)
        }
    }
}

extension PortalAuthError {
    /// This error with the remedy it has when the API key came from `ARCGIS_API_KEY` (or its
    /// file, `name`): the variable is what to fix (storing a key would not replace it).
    public func fromEnvironmentKey(named name: String) -> PortalAuthError {
        guard case .storeAPIKey = remedy else { return self }
        var error = self
        error.remedy = .fixEnvironment(variables: [name])
        return error
    }
}
