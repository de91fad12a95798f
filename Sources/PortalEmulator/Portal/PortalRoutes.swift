/// The portal: `/portal/sharing/rest/...`.
struct PortalRoutes: Sendable {
    let context: EmulatorContext

    /// The portal's release, as `currentVersion` reports it.
    static let currentVersion = "2025.1"

    /// Answers a request whose path components start with `portal`, `sharing`, `rest`;
    /// `rest` holds the components after those three.
    func handle(_ request: IncomingRequest, rest: [String]) -> OutgoingResponse {
        let lower = rest.map { $0.lowercased() }
        switch lower.count {
        case 0:
            return Rendering.resource(.object([("currentVersion", .string(Self.currentVersion))]), for: request)
        case 1 where lower[0] == "info":
            return Rendering.resource(info(for: request), for: request)
        case 1 where lower[0] == "generatetoken":
            return TokenService(kind: .portal, context: context).generate(request)
        case 2 where lower == ["oauth2", "authorize"]:
            return AuthorizePage(context: context).authorize(request)
        case 2 where lower == ["oauth2", "signin"]:
            return AuthorizePage(context: context).signIn(request)
        case 2 where lower == ["oauth2", "approval"]:
            return AuthorizePage(context: context).approval(request)
        case 2 where lower == ["oauth2", "token"]:
            return OAuthTokenService(context: context).token(request)
        case 2 where lower == ["oauth2", "revoketoken"]:
            return OAuthTokenService(context: context).revoke(request)
        case 2 where lower == ["oauth2", "registerapp"]:
            return APIKeyRoutes(context: context).registerApp(request)
        case 4 where lower[0] == "oauth2" && lower[1] == "apps" && lower[3] == "update":
            return APIKeyRoutes(context: context).updateApp(request, clientID: rest[2])
        case 4 where lower[0] == "content" && lower[1] == "users" && lower[3] == "additem":
            return APIKeyRoutes(context: context).addItem(request, user: rest[2])
        case 6
        where lower[0] == "content" && lower[1] == "users" && lower[3] == "items" && lower[5] == "registeredappinfo":
            return APIKeyRoutes(context: context).registeredAppInfo(request, user: rest[2], itemID: rest[4])
        case 2 where lower == ["portals", "self"]:
            return portalSelf(request)
        case 1 where lower[0] == "search":
            return PortalSearch(context: context).items(request)
        case 3 where lower == ["portals", "self", "users"], 4 where lower == ["portals", "self", "users", "search"]:
            return PortalSearch(context: context).users(request, key: "users")
        case 3
        where lower[0] == "portals" && lower[2] == "servers"
            && (lower[1] == "self" || rest[1] == UserProfile.organizationID):
            return federatedServers(request)
        case 3 where lower == ["portals", "self", "roles"]:
            return PortalSearch(context: context).roles(request)
        case 2 where lower == ["community", "users"]:
            return PortalSearch(context: context).users(request, key: "results")
        case 3 where lower[0] == "content" && lower[1] == "items":
            return PortalSearch(context: context).item(request, id: rest[2])
        case 2 where lower == ["community", "self"]:
            return communitySelf(request)
        case 3 where lower[0] == "community" && lower[1] == "users":
            return communityUser(request, username: rest[2])
        case 5 where lower[0] == "community" && lower[1] == "users" && lower[3] == "info":
            return thumbnail(request, username: rest[2], file: rest[4])
        default:
            return Rendering.error(
                ArcGISError(code: 400, message: "Invalid URL", details: ["Invalid URL"]), for: request)
        }
    }

    /// `/sharing/rest/info`.
    func info(for request: IncomingRequest) -> JSONValue {
        let urls = context.urls(for: request)
        return .object([
            ("owningSystemUrl", .string(urls.portalURL)),
            (
                "authInfo",
                .object([
                    ("isTokenBasedSecurity", .bool(true)),
                    ("tokenServicesUrl", .string(urls.portalURL + "/sharing/rest/generateToken")),
                ])
            ),
        ])
    }

    private func portalSelf(_ request: IncomingRequest) -> OutgoingResponse {
        let viewer: EmulatorUser?
        var app: EmulatorApp? = nil
        switch context.optionalToken(request, realm: .portal, apiKeys: .any) {
        case .failure(let error): return Rendering.error(error, for: request)
        case .success(let record):
            viewer = record.flatMap { context.user(named: $0.username) }
            app = record?.clientID.flatMap { context.app(clientID: $0) }
        }
        let urls = context.urls(for: request)
        let hostAndPath = urls.portalURL.replacingPrefix("https://")
        var members: [(String, JSONValue)] = [
            ("id", .string(UserProfile.organizationID)),
            ("name", .string(context.configuration.portalName)),
            ("portalName", .string(context.configuration.portalName)),
            ("urlKey", .string("emulated")),
            ("customBaseUrl", .string("")),
            ("portalHostname", .string(hostAndPath)),
            ("portalMode", .string("singletenant")),
            ("isPortal", .bool(true)),
            ("allSSL", .bool(true)),
            ("supportsOAuth", .bool(true)),
            ("authorizedCrossOriginDomains", .array([])),
            ("currentVersion", .string(Self.currentVersion)),
            ("portalDeploymentType", .string("ArcGISEnterprise")),
            ("access", .string("private")),
            ("culture", .string("en")),
            ("region", .string("US")),
            ("units", .string("english")),
            ("thumbnail", .null),
            ("created", .int(1_700_000_000_000)),
            ("modified", .int(1_700_086_400_000)),
            ("canSearchPublic", .bool(true)),
            ("canSharePublic", .bool(true)),
            ("supportsHostedServices", .bool(true)),
            ("recycleBinSupported", .bool(false)),
            ("recycleBinEnabled", .bool(false)),
            ("hasMemberCategorySchema", .bool(false)),
            ("featuredGroups", .array([])),
            ("defaultExtent", ParcelsDataset.extentJSON),
            ("helperServices", helperServices(urls)),
        ]
        if let viewer { members.append(("user", UserProfile.json(viewer, viewer: viewer))) }
        // An app's own token: the portal says which app (as ArcGIS Online's appInfo does).
        if let app {
            members.append(
                (
                    "appInfo",
                    .object([
                        ("appId", .string(app.clientId)), ("appTitle", .string(app.name)),
                        ("orgId", .string(UserProfile.organizationID)), ("privileges", .array([])),
                    ])
                ))
        }
        return Rendering.resource(.object(members), for: request)
    }

    /// `portals/self.helperServices`: the location services' geocoder and route service, shaped as
    /// ArcGIS Online lists them (on the federated server when no location services run).
    private func helperServices(_ urls: EmulatorURLs) -> JSONValue {
        let base = urls.locationServicesBaseURL
        let geocodeURL =
            base.map { $0 + LocationServicesRoutes.geocodePath }
            ?? urls.serverURL + "/rest/services/World/GeocodeServer"
        let routeURL =
            base.map { $0 + LocationServicesRoutes.routePath }
            ?? urls.serverURL + "/rest/services/World/Route/NAServer/Route_World"
        return .object([
            (
                "geocode",
                .array([
                    .object([
                        ("url", .string(geocodeURL)), ("northLat", .string("Ymax")), ("southLat", .string("Ymin")),
                        ("eastLon", .string("Xmax")), ("westLon", .string("Xmin")),
                        ("name", .string("ArcGIS World Geocoding Service")), ("batch", .bool(true)),
                        ("placefinding", .bool(true)), ("suggest", .bool(true)),
                    ])
                ])
            ),
            ("route", .object([("url", .string(routeURL))])),
        ])
    }

    /// `portals/self/servers` (or `portals/<id>/servers`): the servers federated with the portal,
    /// readable by any signed-in member; the claimant server is not among them.
    private func federatedServers(_ request: IncomingRequest) -> OutgoingResponse {
        context.counters.update { $0.federatedServerListReads += 1 }
        switch context.requireToken(request, realm: .portal) {
        case .failure(let error): return Rendering.error(error, for: request)
        case .success:
            let urls = context.urls(for: request)
            let server: JSONValue = .object([
                ("id", .string("emulatedServer1")), ("name", .string(urls.serverURL.replacingPrefix("https://"))),
                ("url", .string(urls.serverURL)), ("adminUrl", .string(urls.serverURL)), ("isHosted", .bool(true)),
                ("serverType", .string("ArcGIS")), ("serverRole", .string("HOSTING_SERVER")),
                ("serverFunction", .string("")),
            ])
            return Rendering.resource(.object([("servers", .array([server]))]), for: request)
        }
    }

    private func communitySelf(_ request: IncomingRequest) -> OutgoingResponse {
        switch context.requireToken(request, realm: .portal) {
        case .failure(let error): return Rendering.error(error, for: request)
        case .success(let record):
            guard let user = context.user(named: record.username) else {
                return Rendering.error(.invalidToken, for: request)
            }
            return Rendering.resource(UserProfile.json(user, viewer: user), for: request)
        }
    }

    private func communityUser(_ request: IncomingRequest, username: String) -> OutgoingResponse {
        switch context.requireToken(request, realm: .portal) {
        case .failure(let error): return Rendering.error(error, for: request)
        case .success(let record):
            guard let user = context.user(named: username) else {
                return Rendering.error(Self.userNotFound(username), for: request)
            }
            return Rendering.resource(
                UserProfile.json(user, viewer: context.user(named: record.username)), for: request)
        }
    }

    private func thumbnail(_ request: IncomingRequest, username: String, file: String) -> OutgoingResponse {
        switch context.requireToken(request, realm: .portal) {
        case .failure(let error): return Rendering.error(error, for: request)
        case .success:
            guard let user = context.user(named: username) else {
                return Rendering.error(Self.userNotFound(username), for: request)
            }
            guard let thumbnail = user.thumbnail, thumbnail == file else {
                var response = Rendering.error(
                    ArcGISError(code: 404, message: "File not found.", details: ["\(file)"]), for: request)
                response.status = 404
                return response
            }
            return Thumbnail.response
        }
    }

    /// 400 COM_0019 User not found.
    static func userNotFound(_ username: String) -> ArcGISError {
        ArcGISError(
            code: 400, message: "User not found", messageCode: "COM_0019",
            details: ["User '\(username)' does not exist or is inaccessible."])
    }
}

extension String {
    /// The string without `prefix` at its start (unchanged when it does not start with it).
    func replacingPrefix(_ prefix: String) -> String {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : self
    }
}
