import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An error as one JSON object on one line, for programs that run portal-auth
/// (`PORTAL_AUTH_ERROR_FORMAT=json`): `{"error":{"code":"noCredential","exit":3,"message":"…"}}`.
/// `message` is the line a person would read (cleaned of control characters like every line
/// portal-auth prints); `code` and `exit` are what a program decides on.
struct ErrorLine: Encodable {
    struct Body: Encodable {
        let code: String
        let exit: Int32
        let message: String
    }

    let error: Body

    init(_ error: PortalAuthError) {
        self.error = Body(
            code: error.code.description, exit: exitCode(for: error.code), message: terminalText(error.cliMessage))
    }

    /// The object, keys sorted, on one line.
    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return #"{"error":{"code":"internalError","exit":1}}"# }
        return String(decoding: data, as: UTF8.self)
    }
}
