import PortalAuth

extension FuzzTargets {
    /// The ArcGIS API for Python's profile files (`ArcGISProfileFile`: `~/.arcgisprofile`, which
    /// `import arcgis-profile` reads): whatever is accepted has distinct profile names within the
    /// bounds, lower-case option names, at most the bounded options (a profile's and `[DEFAULT]`'s),
    /// and each profile says what it becomes.
    public static func arcGISProfile(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let file = try? ArcGISProfileFile(text: text, source: "fuzz") else { return }
        precondition(file.sections.count <= ArcGISProfileFile.maximumSections, "more profiles than the bound")
        precondition(Set(file.sections.map(\.name)).count == file.sections.count, "a profile name twice")
        for section in file.sections {
            precondition(!section.name.isEmpty, "a profile without a name")
            precondition(section.options.count <= 2 * ArcGISProfileFile.maximumOptions, "options beyond the bounds")
            precondition(section.options.keys.allSatisfy { !$0.isEmpty && $0 == $0.lowercased() }, "an odd option name")
            for source in ArcGISProfile.Source.allCases { _ = ArcGISProfile(section, source: source).signIn }
        }
    }
}
