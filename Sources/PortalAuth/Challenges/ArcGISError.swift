#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An ArcGIS error body: `{"error":{"code":…,"message":…,"messageCode":…,"details":[…]}}`.
public struct ArcGISError: Sendable, Equatable, Codable {
    /// The ArcGIS code (498, 499, 400, 403, …).
    public var code: Int
    /// The message.
    public var message: String
    /// The message code, for example `GWM_0003`.
    public var messageCode: String?
    /// Details.
    public var details: [String]

    /// Creates an ArcGIS error.
    public init(code: Int, message: String, messageCode: String? = nil, details: [String] = []) {
        self.code = code
        self.message = message
        self.messageCode = messageCode
        self.details = details
    }

    /// Reads the error out of a response body, or `nil` when the body is not an ArcGIS error.
    public static func parse(_ body: [UInt8]) -> ArcGISError? {
        // Cheap check first: every response passes through here.
        guard let first = body.firstIndex(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }),
            body[first] == UInt8(ascii: "{"),
            body.count < 65_536,
            ASCIIText.contains(body.prefix(64), "\"error\"")
        else { return nil }
        guard let json = try? JSONValue.parse(body, source: ""), let error = json["error"] else { return nil }
        guard let number = error["code"]?.doubleValue else { return nil }
        // A code is a small integer; a server's 1e300 or 4.5 is kept as 0 (unknown), never trapped on.
        let code = number.isFinite && number.rounded() == number && abs(number) < 1e9 ? Int(number) : 0
        let details = error["details"]?.arrayValue?.compactMap(\.stringValue) ?? []
        return ArcGISError(
            code: code, message: error["message"]?.stringValue ?? error["error_description"]?.stringValue ?? "",
            messageCode: error["messageCode"]?.stringValue, details: details)
    }

    /// The error as a ``PortalAuthError/Cause``.
    public var cause: PortalAuthError.Cause {
        .arcGIS(code: code, messageCode: messageCode, message: message, details: details)
    }
}
