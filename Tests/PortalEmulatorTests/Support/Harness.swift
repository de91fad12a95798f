import Foundation
import PortalEmulator

extension PortalEmulator {
    /// The portal's generateToken URL.
    var generateTokenURL: String { portalURL + "/sharing/rest/generateToken" }
    /// The federated layer's query URL.
    var serverQueryURL: String { serverURL + "/rest/services/Parcels/FeatureServer/0/query" }
    /// The standalone layer's query URL.
    var standaloneQueryURL: String { standaloneServerURL + "/rest/services/Parcels/FeatureServer/0/query" }

    /// Signs in through generateToken and returns the JSON answer.
    func signIn(
        _ username: String = "alice", _ password: String = "alice-pass-123", extra: [(String, String)] = []
    ) async throws -> [String: Any] {
        let result = try await Curl.post(
            generateTokenURL, form: [("username", username), ("password", password), ("f", "json")] + extra,
            ca: caCertificatePath)
        return try result.json()
    }

    /// A portal token for alice via generateToken.
    func portalToken(_ username: String = "alice", _ password: String = "alice-pass-123") async throws -> String {
        guard let token = try await signIn(username, password)["token"] as? String else {
            throw CurlError.missing("token")
        }
        return token
    }

    /// A federated server token exchanged for a portal token.
    func serverToken(portalToken: String) async throws -> String {
        let result = try await Curl.post(
            generateTokenURL, form: [("token", portalToken), ("serverUrl", serverURL), ("f", "json")],
            ca: caCertificatePath)
        guard let token = try result.json()["token"] as? String else { throw CurlError.missing("server token") }
        return token
    }

    /// Runs a query on a layer with `X-Esri-Authorization` and returns curl's result.
    func query(
        _ url: String, token: String?, _ parameters: [(String, String)], headers: [String: String] = [:]
    ) async throws -> CurlResult {
        var allHeaders = headers
        if let token { allHeaders["X-Esri-Authorization"] = "Bearer \(token)" }
        return try await Curl.post(url, form: parameters + [("f", "json")], ca: caCertificatePath, headers: allHeaders)
    }
}

/// The OBJECTIDs of a query answer's features, in order.
func objectIDs(_ answer: [String: Any]) throws -> [Int] {
    guard let features = answer["features"] as? [[String: Any]] else {
        throw CurlError.missing("features in \(answer)")
    }
    return try features.map { feature in
        guard let attributes = feature["attributes"] as? [String: Any],
            let id = (attributes["OBJECTID"] as? NSNumber)?.intValue
        else { throw CurlError.missing("OBJECTID") }
        return id
    }
}

/// The current time in epoch milliseconds.
func nowMilliseconds() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
