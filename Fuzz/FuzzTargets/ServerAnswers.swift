// Bodies of the fuzz targets for what servers send: token answers and authentication headers.
import PortalAuth
import PortalAuthIAP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension FuzzTargets {
    static let portal = try! ServerContext("https://portal.example.com/portal")

    /// OAuth token answers: an ArcGIS portal's `oauth2/token` (what `postForm` reads once it is
    /// not an ArcGIS error) and Entra ID's v2.0 token endpoint, from the same bytes. Whatever is
    /// accepted is a usable, unexpired token with real dates.
    public static func tokenAnswer(_ bytes: [UInt8]) {
        if ArcGISError.parse(bytes) == nil, let json = try? JSONValue.parse(bytes, source: "fuzz") {
            do {
                let answer = try ArcGISOAuthTokenEndpoint(portal: portal).tokenResponse(from: json, at: Check.now)
                Check.issued(answer.tokenInfo, "ArcGIS access token")
                Check.lifetimeIsANumber(json["expires_in"], "ArcGIS access token")
                Check.finite(answer.refreshTokenExpirationDate, "ArcGIS refresh token")
            } catch {
                _ = Check.portalAuthError(error, "ArcGIS token answer")
            }
        }
        do {
            let answer = try EntraTokenEndpoint.tokenResponse(status: 200, body: bytes, from: "fuzz", at: Check.now)
            Check.issued(answer.accessToken, "Entra access token")
            if let idToken = answer.idToken {
                precondition(TokenInfo.isUsableToken(idToken.accessToken), "an unusable Entra ID token was accepted")
                Check.finite(idToken.expirationDate, "Entra ID token")
            }
            precondition(answer.refreshToken.map { !$0.isEmpty } ?? true, "an empty refresh token was kept")
        } catch {
            _ = Check.portalAuthError(error, "Entra token answer")
        }
    }

    /// `WWW-Authenticate` values (one per line) of a 401: the offer names at least one scheme,
    /// and its realm and description can be shown in a terminal.
    public static func authenticateHeader(_ bytes: [UInt8]) {
        let values = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .map(String.init)
        let url = URL(string: "https://server.example.com/arcgis/rest/services")!
        let headers = values.map { (name: "WWW-Authenticate", value: $0) }
        let parsed = HTTPAuthenticationHeader.parse(values)
        let offer = TransportResponse(status: 401, headers: headers, body: [], url: url).httpAuthenticationOffer
        precondition((offer == nil) == (parsed == nil), "the response's offer differs from the header's")
        precondition(
            TransportResponse(status: 200, headers: headers, body: [], url: url).httpAuthenticationOffer == nil)
        guard let parsed else { return }
        precondition(!parsed.schemes.isEmpty && !parsed.names.isEmpty, "an offer without a scheme")
        precondition(offer?.schemes == parsed.schemes && offer?.realm == parsed.realm)
        if let realm = parsed.realm {
            precondition(!realm.contains("\""), "the realm runs past its closing quote")
            Check.printable(realm, "realm")
        }
        Check.printable(parsed.description, "offer")
    }
}
