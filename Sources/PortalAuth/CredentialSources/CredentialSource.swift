#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Where a program's credentials come from: the environment's, kept in memory, or the stored
/// ones. Each source answers with its own ``AuthenticationManager``, which then decides what is
/// attached where (``AuthenticationManager/decision(for:includingProxy:renewingFirst:interactive:)``).
///
/// A ``CredentialSourceChain`` asks its sources in order which one answers for a URL; the first
/// that says yes wins. A source written outside the package joins a chain as the bundled ones do.
public protocol CredentialSource: Sendable, CustomStringConvertible {
    /// What the source is, for a report (never a secret): "the environment (ARCGIS_HOST, …)".
    var description: String { get }
    /// A short name that stays the same, for programs that read it: ``TokenJSON``'s `source`
    /// ("environment", "stored"). By default the type's name.
    var name: String { get }
    /// The manager that answers for the source's URLs.
    var manager: AuthenticationManager { get }

    /// Whether `url` is this source's to answer. Asked by a ``CredentialSourceCaller/program``
    /// (working on a URL it was given, which it contacts anyway), the source may read what the
    /// URL's own server says of itself; asked by a ``CredentialSourceCaller/proxy``, it contacts no
    /// host but its own portal, so that the proxy's clients cannot make it contact hosts nobody
    /// vouched for.
    func answers(for url: URL, askedBy caller: CredentialSourceCaller) async throws -> Bool
}

extension CredentialSource {
    /// The type's name (a source written outside the package may give a shorter one).
    public var name: String { String(describing: Self.self) }

    /// This source's decision for `url`, naming it (``CredentialDecision/source``). Asked by a
    /// ``CredentialSourceCaller/program``, its manager's
    /// ``AuthenticationManager/decision(for:includingProxy:renewingFirst:interactive:)``; by a
    /// ``CredentialSourceCaller/proxy``, its ``AuthenticationManager/forwardingDecision(for:)``, which
    /// contacts no host outside every known credential's reach, never prompts and always looks for
    /// the identity-aware proxy's credential (`includingProxy`, `renewingFirst` and `interactive` are
    /// the program's). Ask it of the source that answers for `url`
    /// (``answers(for:askedBy:)``, or a ``CredentialSourceChain``).
    ///
    /// Not a requirement of the protocol, on purpose: a source says which URLs are its own and
    /// gives its manager, and what goes where is always that manager's decision, so a source
    /// cannot decide otherwise (nor have a proxy contact a host nobody vouched for).
    public func decision(
        for url: URL, askedBy caller: CredentialSourceCaller, includingProxy: Bool = true, renewingFirst: Bool = true,
        interactive: Bool = false
    ) async throws -> CredentialDecision {
        var decision =
            switch caller {
            case .program:
                try await manager.decision(
                    for: url, includingProxy: includingProxy, renewingFirst: renewingFirst, interactive: interactive)
            case .proxy: try await manager.forwardingDecision(for: url)
            }
        decision.source = self
        return decision
    }
}
