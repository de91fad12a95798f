import ArgumentParser

/// `portal-auth import arcgis-profile`: sign-ins other tools already hold, brought over.
struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Bring over the sign-ins another tool saved (the ArcGIS API for Python's profiles).",
        subcommands: [ImportArcGISProfile.self])

    /// The names of `import`'s commands (global options typed before `import` go after them).
    static var subcommandNames: Set<String> { Set(configuration.subcommands.map { $0._commandName }) }
}
