// Bodies of the fuzz targets for what portal-auth reads locally: configuration files, the
// loopback listener's requests, and the credentials read back from the keyring or the file store.
package import PortalAuth
import PortalAuthCertificate
import PortalAuthIAP
import PortalAuthOAuthApplication
import PortalAuthOAuthUser
import PortalAuthPassword
import PortalAuthPregeneratedToken
import PortalAuthServerTrust
import PortalAuthToken

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension FuzzTargets {
    /// `login --config FILE`: the file's kind (by `type` or by its keys), then the IAP or OAuth
    /// user reader. Errors name the file; a configuration read is one that works (secure URLs,
    /// the identity provider never behind its own proxy) and survives the keyring (Codable).
    public static func configurationFile(_ bytes: [UInt8]) {
        do {
            var file = try ConfigurationFile(data: bytes, source: "fuzz.json")
            let kind = try file.readingKind(among: [OAuthUserConfiguration.fileKind, IAPConfiguration.fileKind])
            precondition(file.context.hasPrefix("fuzz.json (read as "), "the kind read is not said")
            if kind == IAPConfiguration.fileKind {
                checkIAP(try IAPConfiguration(file: file))
            } else {
                let configuration = try OAuthUserConfiguration(file: file)
                precondition(!configuration.clientID.isEmpty && configuration.timeout > 0)
                precondition(ConfigurationFile.isSecureOrLoopback(configuration.portalURL), "an insecure portal URL")
                precondition((try? configuration.portalContext) != nil, "a portal URL that is no server context")
            }
        } catch {
            let error = Check.portalAuthError(error, "a configuration file")
            precondition(error.message.contains("fuzz.json"), "the error does not name the file: \(error.message)")
        }
    }

    private static func checkIAP(_ configuration: IAPConfiguration) {
        for url in [configuration.authorizeURL, configuration.tokenURL, configuration.logoutURL] {
            precondition(ConfigurationFile.isSecureOrLoopback(url), "an insecure identity provider URL")
            precondition(!configuration.canBeUsed(for: url), "the identity provider is behind its own proxy")
        }
        precondition(!configuration.clientID.isEmpty && !configuration.hostsBehindProxy.isEmpty)
        let encoded = try! JSONEncoder().encode(configuration)
        let decoded = try? JSONDecoder().decode(IAPConfiguration.self, from: encoded)
        precondition(decoded == configuration, "the configuration does not survive the keyring's JSON")
    }

    /// The OAuth redirect listener's request, read by the local server's request reader
    /// (``LoopbackHTTPRequest/parse(_:limits:)``, with the listener's limits): the verdict (a redirect
    /// only for a GET of the path, and only with this sign-in's state), the query's form encoding
    /// (decode ∘ encode ∘ decode = decode), and the HTML escaping of the decoded text its pages show.
    public static func loopbackRequest(_ bytes: [UInt8]) {
        let limits = LoopbackHTTPRequest.Limits(headBytes: LoopbackRedirectRequest.maximumRequestSize, bodyBytes: 0)
        guard let request = try? LoopbackHTTPRequest.parse(bytes, limits: limits) else { return }
        let path = "/oauth/callback"
        for state in ["fuzz-state", nil] as [String?] {
            let verdict = LoopbackRedirectRequest.verdict(
                method: request.method, target: request.target, path: path, expectedState: state)
            guard case .redirect(let parameters) = verdict else { continue }
            precondition(
                request.method == "GET" && LoopbackRedirectRequest.split(request.target).path == path,
                "a redirect that is no GET of the path")
            if let state { precondition(parameters["state"] == state, "a redirect with a foreign state") }
        }
        let pairs = FormEncoding.decode(LoopbackRedirectRequest.split(request.target).query)
        let again = FormEncoding.decode(FormEncoding.encode(pairs))
        precondition(again.map(\.0) == pairs.map(\.0) && again.map(\.1) == pairs.map(\.1), "the query round trip")
        // What reaches a page is the decoded text (an `error_description`, say), not the target.
        for text in pairs.flatMap({ [$0.0, $0.1] }) {
            let html = LoopbackRedirectRequest.escapeHTML(text)
            precondition(!html.contains("<") && !html.contains(">") && !html.contains("\""), "unescaped HTML")
            let unescaped = html.replacing("&lt;", with: "<").replacing("&gt;", with: ">")
                .replacing("&quot;", with: "\"").replacing("&amp;", with: "&")
            precondition(unescaped == text, "the HTML escaping loses text")
        }
    }

    /// One engine that reads every credential kind portal-auth stores (the core's and each plugin's).
    package static let engine: CredentialStoreEngine = {
        let engine = CredentialStoreEngine(backend: MemoryCredentialBackend(), storeName: "fuzz")
        engine.register(FederatedTokenCredential.self)
        engine.register(APIKeyCredential.self)
        engine.register(TokenCredential.self)
        engine.register(PregeneratedTokenCredential.self)
        engine.register(OAuthUserCredential.self)
        engine.register(OAuthApplicationCredential.self)
        engine.register(IAPCredential.self)
        engine.register(PasswordCredential.self)
        engine.register(CertificateCredential.self)
        engine.register(ServerTrustCredential.self)
        return engine
    }()

    /// A keyring item's secret (a credential's JSON) read back: what decodes has a usable token,
    /// stores again, and reads back the same; errors never quote the secret.
    public static func storedCredential(_ bytes: [UInt8]) {
        checkStored(String(decoding: bytes, as: UTF8.self), server: "https://portal.example.com/portal")
    }

    static func checkStored(_ secret: String, server: String) {
        let credential: any StorableCredential
        do {
            credential = try engine.decode(secret, server: server)
        } catch {
            let error = Check.portalAuthError(error, "a stored credential")
            precondition(secret.count < 40 || !error.message.contains(secret), "the error quotes the secret")
            return
        }
        if let arcGIS = credential as? any ArcGISCredential {
            precondition(TokenInfo.isUsableToken(arcGIS.tokenInfo.accessToken), "an unusable stored token was read")
            Check.finite(arcGIS.tokenInfo.expirationDate, "stored token")
        }
        if let proxy = credential as? any IAPAuthorizationCredential {
            precondition(TokenInfo.isUsableToken(proxy.tokenInfo.accessToken), "an unusable proxy token was read")
        }
        func encode<C: StorableCredential>(_ credential: C) -> String? { try? engine.encode(credential) }
        guard let stored = encode(credential) else { preconditionFailure("a credential read back cannot be stored") }
        guard let again = try? engine.decode(stored, server: server) else {
            preconditionFailure("a stored credential does not read back: \(stored)")
        }
        precondition(encode(again) == stored, "a stored credential reads back differently")
    }

    /// The file store's file: what reads stores again the same (the rewrite under the lock
    /// keeps every item as it was), and each item's secret is a stored credential.
    public static func credentialFile(_ bytes: [UInt8]) {
        let contents: FileCredentialBackend.FileContents
        do {
            contents = try FileCredentialBackend.decodeContents(bytes, path: "fuzz.json")
        } catch {
            let error = Check.portalAuthError(error, "a credentials file")
            precondition(error.message.contains("fuzz.json"), "the error does not name the file")
            return
        }
        guard let written = try? FileCredentialBackend.encodeContents(contents) else {
            preconditionFailure("a credentials file that was read cannot be written")
        }
        let reread = try? FileCredentialBackend.decodeContents(written, path: "fuzz.json")
        precondition(reread == contents, "a rewritten credentials file reads back differently")
        precondition((try? FileCredentialBackend.encodeContents(contents)) == written, "the file's bytes vary")
        for item in contents.items.prefix(4) { checkStored(item.secret, server: item.attributes.server) }
    }

    /// The keyring's item index (a file in the lock folder): whatever it reads, it writes back as
    /// the same index, in no more bytes than it read (only valid lines are kept; the last one may
    /// gain its newline).
    public static func keyringIndex(_ bytes: [UInt8]) {
        let index = KeyringItemIndex(parsing: String(decoding: bytes, as: UTF8.self))
        let text = index.text
        precondition(KeyringItemIndex(parsing: text) == index, "a written index reads back differently")
        precondition(index == KeyringItemIndex() || text.utf8.count <= bytes.count + 1, "the index grew when rewritten")
    }
}
