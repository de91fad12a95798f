import ArgumentParser
import PortalAuth
import PortalAuthOAuthUser

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Login {
    /// `--portal` (or `--url`) as the portal's root URL, read as every typed portal URL is
    /// (``PortalURLInput``): a URL copied from the browser is reduced to the portal, with a note.
    static func portalRoot(_ text: String) throws -> URL {
        try PortalURLInput.read(text, doing: "signing in to")
    }

    /// The `--redirect-url` (or the out-of-band URI) as a URL; the default loopback when none is given.
    static func redirect(_ text: String?) throws -> URL {
        guard let text else { return OAuthUserConfiguration.defaultRedirectURL }
        _ = try AuthorizationRedirect(text)  // its error says what a redirect URL may be
        guard let url = URL(string: text) else { throw ValidationError("--redirect-url \(text) is not a URL") }
        return url
    }
}
