// swift-tools-version:6.2
import Foundation
import PackageDescription

/// A package outside portal-auth that builds the `portal-auth` CLI (`Sources/portal-auth`, linked
/// from `Sources/`, so the two never drift) as its own executable target on the root package's
/// products alone (issue #35, item 5): whatever the CLI needs is public API, so a program that
/// imports the library can do what the CLI does. `scripts/checks/external-cli.sh` builds it.
///
/// The root package's identity is its folder's name (a clone may be called anything).
let root = URL(fileURLWithPath: Context.packageDirectory).appendingPathComponent("../..").standardizedFileURL
let rootIdentity = root.lastPathComponent.lowercased()
let pluginNames = [
    "Token", "PregeneratedToken", "OAuthUser", "OAuthApplication", "IAP", "Password", "Certificate", "ServerTrust",
]

let package = Package(
    name: "ExternalCLI",
    platforms: [.macOS(.v15)],
    products: [.executable(name: "external-portal-auth", targets: ["ExternalPortalAuth"])],
    dependencies: [
        .package(path: root.path),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        .executableTarget(
            name: "ExternalPortalAuth",
            dependencies: [
                .product(name: "PortalAuth", package: rootIdentity),
                .product(name: "PortalAuthBuildInfo", package: rootIdentity),
                .product(name: "CommandSpelling", package: rootIdentity),
                .product(name: "PortalAuthEnvironment", package: rootIdentity),
                .product(name: "PortalAuthServe", package: rootIdentity),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ] + pluginNames.map { .product(name: "PortalAuth\($0)", package: rootIdentity) },
            path: "Sources/portal-auth",
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("InternalImportsByDefault"),
                .enableUpcomingFeature("MemberImportVisibility"),
            ])
    ]
)
