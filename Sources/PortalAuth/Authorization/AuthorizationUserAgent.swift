internal import CPortalAuth

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Who shows the user the authorization page and, for out-of-band and custom redirects, reads
/// back what the user pastes. The CLI prints to the terminal; a library user can drive its own UI.
public protocol AuthorizationUserAgent: Sendable {
    /// Shows the authorization page at `url` (opens a browser, or tells the user to), and says
    /// what is being waited for: `redirectURI` is where the browser will be sent back to.
    func present(_ url: URL, redirectURI: String) async throws
    /// Asks for what the user pastes: the code shown by the portal (out of band) or the URL the
    /// browser arrived at (a custom redirect). `prompt` says which.
    func readPastedResponse(_ prompt: String) async throws -> String
}
