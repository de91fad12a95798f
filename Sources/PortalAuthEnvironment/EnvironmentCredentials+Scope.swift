// Which URLs the environment's credential answers for, and how a manager presents it.
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
    /// ``AuthenticationManager/apiKeySource``, read with the key at the portal (a refused key is
    /// known now). A password or an app's secret is not used yet: ``signIn(in:)`` does that.
    public func present(in manager: AuthenticationManager) async throws {
        if let key = try await apiKeySource(services: manager.services) { manager.apiKeySource = key }
    }

    /// Signs in to the portal in `manager` now with a password or an app's secret (an API key
    /// signs nothing in), unless it holds the portal's credential already: the sign-in a stored
    /// credential would have been, which commands that never prompt find, and federate or renew from.
    public func signIn(in manager: AuthenticationManager) async throws {
        if case .apiKey = source { return }
        _ = try await manager.credential(for: URL(string: portal.url)!, interactive: true)
    }

    /// Whether `url` is the environment's to answer: its manager, not the stored credentials',
    /// decides what goes there. (The decision of what is attached is the manager's, as for any
    /// credential: a portal's token goes to a server only on the portal's word.)
    ///
    /// - An API key (presented with ``present(in:)``): its own scope, the portal and the helper
    ///   services `portals/self` lists.
    /// - Otherwise an https URL of the portal, or of an ArcGIS Server the portal answers for:
    ///   - asked by a program, a server whose `rest/info` names the portal as its owner (the
    ///     manager then federates by the portal's word: a server token the portal issues, its list
    ///     of servers, ArcGIS Online's hosting; or says the server is not federated), or one the
    ///     portal lists once the manager has signed in. Nothing signs in to decide. For a program
    ///     working on a URL it was given, which it contacts anyway.
    ///   - asked by a proxy, only a server the portal lists among its servers (`portals/self/servers`) or
    ///     one whose token the manager holds: no host but the portal is contacted. For a proxy,
    ///     whose clients must not make it contact hosts the portal does not know. Sign the manager
    ///     in first (``signIn(in:)``): before, the portal lists nothing.
    public func answers(
        for url: URL, in manager: AuthenticationManager, askedBy caller: CredentialSourceCaller
    ) async throws -> Bool {
        // (A rotated key keeps the first key's scope.)
        if let key = manager.apiKeySource { return ScopedCredential(key.credential).covers(url) }
        guard url.scheme?.lowercased() == "https" else { return false }
        guard let root = ServerContext.arcGISServerRoot(of: url) else {
            guard let context = try? ServerContext(url: url) else { return false }
            return isPortal(context) || portal.contains(url)
        }
        guard caller == .program else { return try await manager.isWithinKnownScope(url) }
        if await namesThePortal(root, services: manager.services) { return true }
        // (The list of a portal signed in already: no sign-in for a server that does not name it.)
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
    /// `portals/self` lists (read with the key through `services`: a refused key is known now), as
    /// a manager presents it: from a file, read again when the file changes (``RotatingAPIKey``);
    /// nil for the other sources. Kept in memory. A refused key's remedy names the variable to fix.
    public func apiKeySource(services: AuthenticationServices) async throws -> RotatingAPIKey? {
        guard case .apiKey(let secret) = source else { return nil }
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
