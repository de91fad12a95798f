extension CredentialStore {
    /// The one way a new credential enters the store: the library's sign-ins, plugins' answers,
    /// renewals and federation all commit through it, and so should a program that signs in
    /// itself. Call it only once the server accepted the credential: a failed sign-in leaves the
    /// store as it was.
    ///
    /// For an ArcGIS credential of a server context, it decides, under the context's
    /// cross-process lock (the one renewals and ``ArcGISCredentialStore/switchAccount(_:to:)``
    /// take), the account it belongs to and what it replaces (``CredentialCommit``):
    ///
    /// - a sign-in of the active user (or of a principal without a name, such as an app or a
    ///   pregenerated token) replaces the active credential; another user's is kept beside it as an
    ///   inactive account;
    /// - a new principal's credential first removes the federated server tokens of the one it
    ///   replaces, so they are never served for it;
    /// - a renewal goes where its account lives now, and not back after a sign-out;
    /// - a federated server token is kept only while the account it was issued for is the
    ///   portal's.
    ///
    /// Any other credential replaces the one of its scope and kind, under the scope's lock.
    ///
    /// With ``forget(_:kind:)`` it is the library's only write: the storage layer's own writes
    /// and the backends' (``CredentialWriteAccess``) are not reachable from outside it.
    @discardableResult
    public func commit(_ credential: Credential, origin: CredentialOrigin) async throws -> CredentialCommitOutcome {
        guard let arcGIS = self as? ArcGISCredentialStore, let new = credential as? any ArcGISCredential,
            case .serverContext = new.scope
        else {
            guard let stored = credential as? any StoredCredential else {
                throw PortalAuthError(
                    .internalError, "\(type(of: credential)) is not a stored credential", remedy: .none)
            }
            try await withScopeLock(stored.scope) { try await add(credential) }
            return .stored
        }
        return try await arcGIS.commitArcGIS(new, origin: origin)
    }
}

extension CredentialStore where Credential == any ArcGISCredential {
    /// ``commit(_:origin:)`` for an ArcGIS credential of a server context.
    func commitArcGIS(
        _ credential: any ArcGISCredential, origin: CredentialOrigin
    ) async throws
        -> CredentialCommitOutcome
    {
        // A renewal in a store of one inactive account goes where that account lives now.
        if origin == .renewal, credential.derivedFrom == nil, let account = backend as? AccountCredentialBackend {
            let base = ArcGISCredentialStore(backend: account.base)
            base.engine.registerDecoders(of: engine)
            defer { invalidateCache() }
            return try await base.commitArcGIS(credential, origin: .renewal)
        }
        let origin = credential.derivedFrom == nil ? origin : .federation
        let context = credential.derivedFrom ?? credential.serverContext
        return try await withScopeLock(.serverContext(context)) {
            let active = try await self.credential(for: context, reload: true)
            let decision = CredentialCommit.decide(
                new: Self.principal(of: credential), origin: origin, active: active.map(Self.principal(of:)))
            // The former principal's server tokens go first: no reader sees the new credential beside them.
            if decision.removesDerivedTokens { try await removeDerivedTokens(of: context, in: self) }
            switch decision.place {
            case .active:
                try await add(credential)
                return .stored
            case .inactive(let username):
                try await accountStore(username: username).add(credential)
                return .storedAsInactiveAccount(activeUser: active?.username ?? "")
            case .nowhere:
                return .notStored
            }
        }
    }

    /// Who `credential` is, for ``CredentialCommit``: for a federated server token, the portal
    /// principal it was issued for.
    static func principal(of credential: any ArcGISCredential) -> CredentialCommit.Principal {
        let kind = type(of: credential).kind
        if let federated = credential as? FederatedTokenCredential {
            return CredentialCommit.Principal(username: federated.username, kind: kind, id: federated.portalPrincipal)
        }
        guard credential.username == nil else {
            return CredentialCommit.Principal(username: credential.username, kind: kind)
        }
        return CredentialCommit.Principal(
            username: nil, kind: kind,
            id: CredentialCommit.identity(
                kind: kind, clientID: credential.howToSignIn.clientID, token: credential.tokenInfo.accessToken))
    }
}
