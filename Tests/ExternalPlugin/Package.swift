// swift-tools-version:6.2
import Foundation
import PackageDescription

/// A package outside portal-auth that builds two of its bundled plugins, OAuthUser (the
/// authorization-code flow with PKCE and the loopback redirect, configuration files) and IAP (an
/// identity-aware proxy's sign-in), as a plugin author's own targets on the `PortalAuth` product
/// alone: whatever they need is public API. `Sources/` links to their folders, so the copies never
/// drift. `scripts/test.sh` builds it.
///
/// The root package's identity is its folder's name (a clone may be called anything).
let root = URL(fileURLWithPath: Context.packageDirectory).appendingPathComponent("../..").standardizedFileURL
let rootIdentity = root.lastPathComponent.lowercased()

let package = Package(
    name: "ExternalPlugin",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ExternalOAuthUser", targets: ["ExternalOAuthUser"]),
        .library(name: "ExternalIAP", targets: ["ExternalIAP"]),
    ],
    dependencies: [.package(path: root.path)],
    targets: ["ExternalOAuthUser", "ExternalIAP"].map { name in
        .target(
            name: name,
            dependencies: [.product(name: "PortalAuth", package: rootIdentity)],
            path: "Sources/\(name)",
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("InternalImportsByDefault"),
                .enableUpcomingFeature("MemberImportVisibility"),
            ])
    }
)
