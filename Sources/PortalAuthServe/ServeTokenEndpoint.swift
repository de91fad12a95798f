import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `BASE/token?url=URL`: what `portal-auth token URL --format json` prints, for programs that talk
/// HTTP but cannot run a command (the credential endpoint of aws-vault and the cloud metadata
/// servers). The same question (``ServeManagers/decision(for:)``, naming its source) and the same rendering
/// (``TokenJSON``).
struct ServeTokenEndpoint {
    let managers: ServeManagers
    /// How an error's message reads to the client (``LocalCredentialServer``'s `describe`).
    let describe: @Sendable (PortalAuthError) -> String

    func answer(query: String) async -> LoopbackHTTPServer.Response {
        let parameters = FormEncoding.decode(query)
        guard let text = parameters.first(where: { $0.0 == "url" })?.1, !text.isEmpty else {
            return .text(400, "give the URL: BASE/token?url=https://host/...")
        }
        do {
            let url = try StrictURL.parse(text).url
            let decision = try await managers.decision(for: url)
            let body = TokenJSON.object(decision).description + "\n"
            return LoopbackHTTPServer.Response(
                status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
                body: Array(body.utf8))
        } catch {
            return ServeErrors.response(for: error, describe: describe)
        }
    }
}
