// swift-tools-version:6.2
import PackageDescription

/// Warnings are errors in this package's own targets when the build asks for it
/// (`PORTAL_AUTH_WARNINGS_AS_ERRORS=1`, as scripts/test.sh and so CI do): a user's `swift build`
/// and a package that depends on this one build as they always did, and no dependency is affected.
let warningsAsErrors: [SwiftSetting] =
    Context.environment["PORTAL_AUTH_WARNINGS_AS_ERRORS"] == "1" ? [.unsafeFlags(["-warnings-as-errors"])] : []

/// Settings every Swift target shares: Swift 6 language mode (the tools default) plus
/// the upcoming features that keep C types out of the public API.
let strict: [SwiftSetting] =
    [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("InternalImportsByDefault"),
        .enableUpcomingFeature("MemberImportVisibility"),
    ] + warningsAsErrors

/// One library target and product per challenge-handler plugin; each depends only on the core.
let pluginNames = [
    "Token", "PregeneratedToken", "OAuthUser", "OAuthApplication", "IAP", "Password", "Certificate", "ServerTrust",
]

/// One libFuzzer executable per parser of untrusted input (Fuzz/FuzzNAME/main.swift, bodies in
/// Fuzz/FuzzTargets, seeds and kept crashes in Fuzz/Corpus/NAME).
let fuzzTargets = [
    "ArcGISJSON", "PKCS12", "TokenAnswer", "AuthenticateHeader", "ConfigurationFile", "LoopbackRequest",
    "StoredCredential", "CredentialFile", "KeyringIndex", "URLContext", "LoopbackHTTPRequest",
    "ProcNetTCP", "ArcGISProfile", "FrontDBusReply", "PEMClientCertificate",
]

/// How `portal-auth` is linked in release builds, so that `portal-auth token` starts about as fast as
/// `secret-tool lookup` (README, "Benchmarks"): with lld, relative relocations packed (RELR: the
/// dynamic loader no longer reads a megabyte of them at each start) and the functions a cached
/// `token` runs laid out side by side (`config/startup.order`, written by
/// `scripts/support/startup-order.sh`), so the kernel maps a few megabytes less of the binary. A symbol the
/// list names that no longer exists is skipped; a stale list costs memory, never correctness.
let startupLinking: [LinkerSetting] = [
    .unsafeFlags(
        [
            "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker",
            "--symbol-ordering-file=\(Context.packageDirectory)/config/startup.order", "-Xlinker",
            "--no-warn-symbol-ordering",
        ], .when(platforms: [.linux], configuration: .release))
]

/// How the small `portal-auth` is linked in release builds: lld with packed relative relocations, as
/// ``startupLinking`` (it has no symbol order: all of it runs).
let frontLinking: [LinkerSetting] = [
    .unsafeFlags(
        ["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"],
        .when(platforms: [.linux], configuration: .release))
]

let package = Package(
    name: "portal-auth",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "PortalAuth", targets: ["PortalAuth"]),
        .library(name: "PortalEmulator", targets: ["PortalEmulator"]),
        // What the CLI uses besides the library, as products: Tests/ExternalCLI builds the CLI on products alone.
        .library(name: "PortalAuthBuildInfo", targets: ["PortalAuthBuildInfo"]),
        .library(name: "PortalAuthEnvironment", targets: ["PortalAuthEnvironment"]),
        .library(name: "PortalAuthServe", targets: ["PortalAuthServe"]),
        .library(name: "CommandSpelling", targets: ["CommandSpelling"]),
        // `portal-auth` is the small program (`--version`, recorded `token` answers); every other
        // command line runs `portal-auth-full`, installed beside it or in ../libexec/portal-auth.
        .executable(name: "portal-auth", targets: ["portal-auth-front"]),
        .executable(name: "portal-auth-full", targets: ["portal-auth"]),
        .executable(name: "portal-emulator", targets: ["portal-emulator"]),
        .executable(name: "portal-auth-benchmark", targets: ["portal-auth-benchmark"]),
    ] + pluginNames.map { .library(name: "PortalAuth\($0)", targets: ["PortalAuth\($0)"]) },
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
    ],
    targets: [
        // C: libsecret headers and library through pkg-config.
        .systemLibrary(
            name: "CLibSecret",
            path: "Sources/CLibSecret",
            pkgConfig: "libsecret-1",
            providers: [.apt(["libsecret-1-dev"])]
        ),
        // C shims: typed wrappers for variadic curl calls, libcurl and libcrypto loaded on
        // first use (dlopen) so the cached-token path never pays for them, the SecretSchema.
        .target(
            name: "CPortalAuth",
            dependencies: ["CLibSecret"],
            path: "Sources/CPortalAuth",
            linkerSettings: [.linkedLibrary("dl")]
        ),
        .target(
            name: "PortalAuth",
            dependencies: [
                "CPortalAuth",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/PortalAuth",
            swiftSettings: strict
        ),
        // Credentials from the environment (ARCGIS_HOST and the rest): a source that signs in with the
        // token and app plugins, so it sits above them, not in the core.
        .target(
            name: "PortalAuthEnvironment",
            dependencies: [
                "PortalAuth", "PortalAuthToken", "PortalAuthOAuthApplication",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/PortalAuthEnvironment",
            swiftSettings: strict
        ),
        // `portal-auth serve` as a library: the loopback HTTP server, the authenticating proxy and the
        // token endpoint, over the credential sources (the environment's, then the stored ones).
        .target(
            name: "PortalAuthServe",
            dependencies: ["PortalAuth", "PortalAuthEnvironment"],
            path: "Sources/PortalAuthServe",
            swiftSettings: strict
        ),
        // The version both programs print (the BuildCommit plugin writes the commit in).
        .target(
            name: "PortalAuthBuildInfo", path: "Sources/PortalAuthBuildInfo", swiftSettings: strict,
            plugins: ["BuildCommit"]),
        // The nearest word to a misspelt one, for both programs (standard library only).
        .target(name: "CommandSpelling", path: "Sources/CommandSpelling", swiftSettings: strict),
        // The small `portal-auth`: no Foundation, no argument parser, no library (docs/development/performance.md).
        .executableTarget(
            name: "portal-auth-front",
            dependencies: ["CPortalAuthFront", "PortalAuthBuildInfo", "CommandSpelling"],
            path: "Sources/portal-auth-front",
            swiftSettings: strict,
            linkerSettings: frontLinking
        ),
        // Its C: a D-Bus client of its own for the Secret Service read (no GLib), and SHA-256.
        .target(name: "CPortalAuthFront", path: "Sources/CPortalAuthFront"),
        .executableTarget(
            name: "portal-auth",
            dependencies: [
                "PortalAuth", "PortalAuthBuildInfo", "CommandSpelling", "PortalAuthEnvironment", "PortalAuthServe",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ] + pluginNames.map { .target(name: "PortalAuth\($0)") },
            path: "Sources/portal-auth",
            swiftSettings: strict,
            linkerSettings: startupLinking
        ),
        // Writes the commit of the checkout into portal-auth at build time (--version).
        .plugin(name: "BuildCommit", capability: .buildTool(), path: "BuildPlugins/BuildCommit"),
        // The emulator is an independent implementation of the server side: it must not
        // import PortalAuth, so a misreading of the protocol cannot hide in both.
        .target(
            name: "PortalEmulator",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/PortalEmulator",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "portal-emulator",
            dependencies: [
                "PortalEmulator",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/portal-emulator",
            swiftSettings: strict
        ),
        // Benchmarks print figures; they are not tests.
        .executableTarget(
            name: "portal-auth-benchmark",
            dependencies: ["PortalAuth", "PortalAuthToken", "PortalEmulator"],
            path: "Benchmarks/ManagerBenchmark",
            swiftSettings: strict
        ),
        // Test helpers: child processes that inherit no stray descriptors, scoped emulators, folders and logs.
        .target(
            name: "TestSupport",
            dependencies: [
                "CPortalAuth", "PortalEmulator", .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/TestSupport",
            swiftSettings: strict
        ),
        .testTarget(
            name: "PortalAuthTests",
            dependencies: [
                "PortalAuth", "PortalEmulator", "TestSupport", "FuzzTargets", "PortalAuthEnvironment",
                "PortalAuthServe",
            ]
                + pluginNames.map { .target(name: "PortalAuth\($0)") },
            path: "Tests/PortalAuthTests",
            swiftSettings: strict
        ),
        // The unit tier: no server, no keyring, no child process (`swift test --filter PortalAuthUnitTests`).
        .testTarget(
            name: "PortalAuthUnitTests",
            dependencies: [
                "PortalAuth", "PortalEmulator", "FuzzTargets", "TestSupport", "portal-auth", "PortalAuthEnvironment",
                "PortalAuthServe",
            ]
                + pluginNames.map { .target(name: "PortalAuth\($0)") },
            path: "Tests/PortalAuthUnitTests",
            swiftSettings: strict
        ),
        .testTarget(
            name: "PortalEmulatorTests",
            dependencies: ["PortalEmulator", "portal-emulator", "TestSupport"],
            path: "Tests/PortalEmulatorTests",
            swiftSettings: strict
        ),
        .testTarget(
            name: "CLITests",
            dependencies: [
                "PortalEmulator", "TestSupport", "PortalAuth", "portal-auth", "portal-auth-front", "CommandSpelling",
            ],
            path: "Tests/CLITests",
            swiftSettings: strict
        ),
    ]
        + [
            // libFuzzer's driver, called from each target's main (PA_FUZZING, set by scripts/fuzz.sh).
            .target(name: "CPortalAuthFuzz", path: "Fuzz/CPortalAuthFuzz"),
            // The small portal-auth's D-Bus reader (front.c, compiled in with an entry point for fuzzing).
            .target(
                name: "CPortalAuthFrontFuzz", path: "Fuzz/CPortalAuthFrontFuzz",
                cSettings: [.headerSearchPath("forward")]),
            // The bodies; a parser kept in a plugin (Entra, the configuration files) is fuzzed there.
            .target(
                name: "FuzzTargets",
                dependencies: ["PortalAuth", "PortalAuthServe", "CPortalAuthFrontFuzz"]
                    + pluginNames.map { .target(name: "PortalAuth\($0)") },
                path: "Fuzz/FuzzTargets", swiftSettings: strict),
        ]
        + fuzzTargets.map { name in
            // A plain build makes an executable that says to use scripts/fuzz.sh.
            .executableTarget(
                name: "Fuzz\(name)", dependencies: ["CPortalAuthFuzz", "FuzzTargets"], path: "Fuzz/Fuzz\(name)",
                swiftSettings: strict)
        }
        + pluginNames.map {
            .target(
                name: "PortalAuth\($0)",
                dependencies: ["PortalAuth", .product(name: "Logging", package: "swift-log")],
                path: "Plugins/\($0)",
                swiftSettings: strict
            )
        }
)
