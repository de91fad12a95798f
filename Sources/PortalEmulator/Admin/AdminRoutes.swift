import Foundation

/// `/emulator/...`: control endpoints for tests and CI (no authentication).
struct AdminRoutes: Sendable {
    let context: EmulatorContext

    /// Answers the control endpoints (`counters`, `reset`, `faults`, `expire-tokens`,
    /// `expire-codes`, `revoke-refresh-tokens`, `oauth-tokens`, `oauth-access-token-lifetime`,
    /// `api-keys`, `invalidate-api-key`, `password`), which
    /// are neither counted nor subject to faults; nil for every other path.
    func control(_ request: IncomingRequest) -> OutgoingResponse? {
        let lower = request.components.map { $0.lowercased() }
        guard lower.count == 2, lower[0] == "emulator" || lower[0] == "admin" else { return nil }
        if lower[1] == "clock" { return clock(request) }
        guard lower[0] == "emulator" else { return nil }
        switch (lower[1], request.method) {
        case ("counters", "GET"):
            return .json(Self.encode(context.counters.snapshot))
        case ("reset", "POST"):
            context.counters.reset()
            return .json(.object([("success", .bool(true))]))
        case ("faults", "GET"):
            return .json(Self.encode(context.faults.armed))
        case ("faults", "POST"):
            return addFaults(request)
        case ("faults", "DELETE"):
            context.faults.clear()
            return .json(.object([("success", .bool(true))]))
        case ("expire-tokens", "POST"):
            context.tokens.expireAll()
            return .json(.object([("success", .bool(true))]))
        case ("expire-entra-tokens", "POST"):
            context.entra.expireAll()
            return .json(.object([("success", .bool(true))]))
        case ("expire-codes", "POST"):
            context.grants.expireCodes()
            return .json(.object([("success", .bool(true))]))
        case ("revoke-refresh-tokens", "POST"):
            context.revokeAllRefreshTokens()
            return .json(.object([("success", .bool(true))]))
        case ("oauth-tokens", "POST"):
            return issueOAuthTokens(request)
        case ("api-keys", "POST"):
            return addAPIKeys(request)
        case ("stream", "GET"):
            return streamProgress(request)
        case ("stream-release", "POST"):
            context.streams.release(request.parameter("name") ?? "")
            return .json(.object([("success", .bool(true))]))
        case ("invalidate-api-key", "POST"):
            return invalidateAPIKey(request)
        case ("password", "POST"):
            return changePassword(request)
        case ("oauth-access-token-lifetime", "POST"):
            return setOAuthAccessTokenLifetime(request)
        case ("counters", _), ("reset", _), ("faults", _), ("expire-tokens", _), ("expire-codes", _),
            ("revoke-refresh-tokens", _), ("oauth-tokens", _), ("oauth-access-token-lifetime", _),
            ("expire-entra-tokens", _), ("api-keys", _), ("invalidate-api-key", _), ("password", _):
            return .text("Method \(request.method) not allowed on \(request.path)\n", status: 405)
        default:
            return nil
        }
    }

    /// `POST /emulator/faults` with a JSON ``Fault`` (or an array of them) as the body: arms them
    /// after the rules already armed.
    private func addFaults(_ request: IncomingRequest) -> OutgoingResponse {
        let data = Data(request.body)
        let decoder = JSONDecoder()
        let faults: [Fault]
        if let list = try? decoder.decode([Fault].self, from: data) {
            faults = list
        } else if let one = try? decoder.decode(Fault.self, from: data) {
            faults = [one]
        } else {
            return .json(ArcGISError.invalidInput(["Body must be a Fault or an array of Faults."]).json, status: 400)
        }
        context.faults.add(faults)
        return .json(.object([("success", .bool(true)), ("added", .number(faults.count))]))
    }

    /// `GET /emulator/stream?name=NAME`: how far the held stream NAME got (``StreamHolds``).
    private func streamProgress(_ request: IncomingRequest) -> OutgoingResponse {
        let progress = context.streams.progress(request.parameter("name") ?? "")
        return .json(
            .object([
                ("sent", .number(progress.sent)), ("held", .bool(progress.held)), ("done", .bool(progress.done)),
                ("aborted", .bool(progress.aborted)),
            ]))
    }

    /// `POST /emulator/invalidate-api-key key=KEY`: the configured API key KEY is refused from now on.
    private func invalidateAPIKey(_ request: IncomingRequest) -> OutgoingResponse {
        guard let key = request.parameter("key"), context.apiKeys.invalidate(key: key) else {
            return .json(ArcGISError.invalidInput(["key must name a configured API key"]).json, status: 400)
        }
        return .json(.object([("success", .bool(true))]))
    }

    /// `POST /emulator/password username=NAME password=NEW`: the user's password changes (as an
    /// administrator would change it), so a remembered one stops working.
    private func changePassword(_ request: IncomingRequest) -> OutgoingResponse {
        guard let username = request.parameter("username"), let password = request.parameter("password"),
            !password.isEmpty, context.changePassword(of: username, to: password)
        else {
            return .json(
                ArcGISError.invalidInput(["username must name a configured user, and password not be empty"]).json,
                status: 400)
        }
        return .json(.object([("success", .bool(true))]))
    }

    /// `POST /emulator/oauth-access-token-lifetime seconds=N`: the lifetime of the OAuth access
    /// tokens issued from now on.
    private func setOAuthAccessTokenLifetime(_ request: IncomingRequest) -> OutgoingResponse {
        guard let seconds = request.parameter("seconds").flatMap(Int.init), seconds > 0 else {
            return .json(ArcGISError.invalidInput(["seconds must be a positive number"]).json, status: 400)
        }
        context.oauthAccessTokenLifetimeSeconds = seconds
        return .json(.object([("success", .bool(true)), ("seconds", .number(seconds))]))
    }

    /// `GET /emulator/clock` (or `/admin/clock`): the clock's time; `POST` with `advance=SECONDS`
    /// moves it forward. Only from a loopback address: moving time expires everyone's tokens.
    private func clock(_ request: IncomingRequest) -> OutgoingResponse {
        guard request.isFromLoopback else {
            return .json(
                ArcGISError(code: 403, message: "The clock can only be moved from this machine (a loopback address).")
                    .json, status: 403)
        }
        switch request.method {
        case "GET": break
        case "POST":
            guard let text = request.parameter("advance"), let seconds = Double(text), seconds >= 0, seconds.isFinite
            else {
                return .json(
                    ArcGISError.invalidInput(["advance must be a number of seconds, 0 or more"]).json, status: 400)
            }
            context.clock.advance(by: .milliseconds(Int64((seconds * 1000).rounded())))
        default:
            return .text("Method \(request.method) not allowed on \(request.path)\n", status: 405)
        }
        return .json(
            .object([
                ("success", .bool(true)), ("now", .int(context.nowMilliseconds)),
                ("offsetSeconds", .int(context.clock.offset.components.seconds)),
            ]))
    }

    /// `POST /emulator/api-keys` with a JSON ``EmulatorAPIKey`` (or an array of them) as the body:
    /// adds the keys at run time (lifetimes count from now).
    private func addAPIKeys(_ request: IncomingRequest) -> OutgoingResponse {
        let data = Data(request.body)
        let decoder = JSONDecoder()
        let keys: [EmulatorAPIKey]
        if let list = try? decoder.decode([EmulatorAPIKey].self, from: data) {
            keys = list
        } else if let one = try? decoder.decode(EmulatorAPIKey.self, from: data) {
            keys = [one]
        } else {
            return .json(
                ArcGISError.invalidInput(["Body must be an API key (with key AAPT…) or an array of them."]).json,
                status: 400)
        }
        for key in keys { context.apiKeys.add(key) }
        return .json(.object([("success", .bool(true)), ("added", .number(keys.count))]))
    }

    /// `POST /emulator/oauth-tokens` (form or query: `username`, `clientId`, optional
    /// `accessLifetimeSeconds`, `refreshLifetimeSeconds`): a token response as if the user had
    /// signed in, so tests and CI can seed an OAuth credential without a browser.
    private func issueOAuthTokens(_ request: IncomingRequest) -> OutgoingResponse {
        guard let username = request.parameter("username"), let user = context.user(named: username) else {
            return .json(ArcGISError.invalidInput(["username must name a configured user"]).json, status: 400)
        }
        guard let clientID = request.parameter("clientid"), context.app(clientID: clientID) != nil else {
            return .json(ArcGISError.invalidInput(["clientId must name a registered app"]).json, status: 400)
        }
        let access = request.parameter("accesslifetimeseconds").flatMap(Int.init)
        let refresh =
            request.parameter("refreshlifetimeseconds").flatMap(Int.init)
            ?? context.configuration.refreshTokenLifetimeSeconds
        return .json(
            OAuthTokenService(context: context).issue(
                username: user.username, clientID: clientID, refreshSeconds: refresh, accessSeconds: access))
    }

    /// `/emulator/redirect?to=[&status=]` and `/emulator/echo[/...]` (with `cors=1`, the answer carries the
    /// CORS headers of a server open to every page): counted like any request.
    func handle(_ request: IncomingRequest) -> OutgoingResponse {
        let lower = request.components.map { $0.lowercased() }
        if lower == ["emulator", "redirect"] {
            guard let target = request.parameter("to"), target.contains("://") else {
                return .text("redirect needs ?to=<absolute URL>\n", status: 400)
            }
            // `status=301|302|303|307|308` (302 when not given): 307 and 308 ask a client to send the
            // same request, body included, to the new location.
            let status = request.parameter("status").flatMap(Int.init) ?? 302
            guard [301, 302, 303, 307, 308].contains(status) else {
                return .text("redirect's status is one of 301, 302, 303, 307, 308\n", status: 400)
            }
            return .redirect(to: target, status: status)
        }
        if lower.count >= 2, lower[1] == "echo" {
            var response = OutgoingResponse.json(
                .object([
                    ("host", .string(request.host)),
                    ("path", .string(request.path)),
                    ("method", .string(request.method)),
                    ("hadToken", .bool(request.carriesAnyToken)),
                ]))
            if request.parameter("cors") == "1" {
                response.headers += [
                    ("Access-Control-Allow-Origin", "*"), ("Access-Control-Allow-Credentials", "true"),
                    ("Access-Control-Expose-Headers", "*"),
                ]
            }
            return response
        }
        return .notFound(request.path)
    }

    /// Encodes a Codable value as the JSON body, keys sorted.
    static func encode(_ value: some Encodable) -> JSONValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let text = (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
        return .raw(text)
    }
}
