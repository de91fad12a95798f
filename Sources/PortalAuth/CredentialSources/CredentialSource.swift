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
    /// The manager that answers for the source's URLs.
    var manager: AuthenticationManager { get }

    /// Whether `url` is this source's to answer. Asked by a ``CredentialSourceCaller/program``
    /// (working on a URL it was given, which it contacts anyway), the source may read what the
    /// URL's own server says of itself; asked by a ``CredentialSourceCaller/proxy``, it contacts no
    /// host but its own portal, so that the proxy's clients cannot make it contact hosts nobody
    /// vouched for.
    func answers(for url: URL, askedBy caller: CredentialSourceCaller) async throws -> Bool
}
