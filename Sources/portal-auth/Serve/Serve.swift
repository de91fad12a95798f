import ArgumentParser
import PortalAuth
import PortalAuthServe

/// `portal-auth serve`: a local server for programs that live for hours (QGIS, GDAL pipelines,
/// notebooks): an authenticating proxy and a token endpoint under one secret base URL.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve secured ArcGIS services to local programs: a proxy that signs requests, and a token endpoint.",
        discussion: """
            Listens on loopback only, under the base URL http://127.0.0.1:PORT/SECRET/ (the secret is kept in the \
            credential store). BASE/https/HOST/PATH forwards to https://HOST/PATH with the credential portal-auth \
            holds for it (only URLs a stored or environment credential covers; anything else is refused); \
            BASE/token?url=URL answers what 'portal-auth token URL --format json' prints. docs/serve.md has \
            QGIS, GDAL and notebook examples.

            Examples:
              portal-auth serve --state-file "$XDG_RUNTIME_DIR/portal-auth-serve.json"
              portal-auth serve url https://host/server/rest/services/Parcels/FeatureServer
            """,
        subcommands: [ServeRun.self, ServeURL.self],
        defaultSubcommand: ServeRun.self
    )

    /// The default address: a fixed port, so that the base URL pasted into a QGIS connection
    /// stays the same across restarts.
    static let defaultListen = "127.0.0.1:47080"
    static let defaultPort = 47080
    /// How many client connections serve keeps open at once (the rest wait in the kernel's queue).
    static let maximumConnections = 64
}
