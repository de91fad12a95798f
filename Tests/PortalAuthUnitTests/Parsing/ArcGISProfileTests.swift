import PortalAuth
import Testing

/// The ArcGIS API for Python's profile files read as Python's `configparser` reads them, and what
/// each profile becomes (`portal-auth import arcgis-profile`).
@Suite struct ArcGISProfileTests {
    /// What `configparser` writes for three profiles the API saves (`GIS(..., profile=...)`).
    static let written = """
        [emu]
        date_modified = 2026-11-28 10:15:37.123456
        url = https://127.0.0.1:8443/portal
        username = alice

        [oauth]
        url = https://www.arcgis.com
        client_id = abc123
        date_modified = 2026-11-28 10:15:38.000001

        [pki]
        url = https://gis.example.com/portal
        key_file = /home/u/me.key
        cert_file = /home/u/me.crt

        """

    @Test func theAPIsOwnFileReadsAsItsProfilesInOrder() throws {
        let profiles = try ArcGISProfile.profiles(text: Self.written, source: .portal, path: "~/.arcgisprofile")
        #expect(profiles.map(\.name) == ["emu", "oauth", "pki"])
        #expect(profiles[0].options["date_modified"] == "2026-11-28 10:15:37.123456")
        #expect(profiles[0].signIn == .password(url: "https://127.0.0.1:8443/portal", username: "alice"))
        #expect(profiles[1].signIn == .oauthUser(url: "https://www.arcgis.com", clientID: "abc123"))
        #expect(
            profiles[2].signIn
                == .clientCertificate(
                    url: "https://gis.example.com/portal", keyFile: "/home/u/me.key", certFile: "/home/u/me.crt"))
    }

    @Test func configparsersOtherFormsReadAlike() throws {
        let text =
            "; a comment\r\n[DEFAULT]\r\nurl: https://gis.example.com/portal\r\n[a]\r\n# note\r\nUserName : bob\r\n"
            + "  continued\r\n[b]\r\nurl = https://other.example.com/portal\r\nusername = carol\r\n"
        let profiles = try ArcGISProfile.profiles(text: text, source: .portal, path: "f")
        #expect(profiles.map(\.name) == ["a", "b"])
        #expect(profiles[0].options["username"] == "bob\ncontinued")
        #expect(profiles[0].url == "https://gis.example.com/portal")
        #expect(profiles[1].url == "https://other.example.com/portal")
    }

    @Test(arguments: [
        "[a]\n[a]\nurl = x\n", "url = x\n", "[a]\njust words\n", "[]\n", "[a]\n = value\n",
    ])
    func aFileConfigparserRefusesIsRefusedWithItsLine(text: String) {
        #expect(throws: PortalAuthError.self) { try ArcGISProfileFile(text: text, source: "f") }
    }

    @Test func aFileLargerThanTheLimitIsRefusedWhole() {
        let text = "[a]\nurl = " + String(repeating: "x", count: ArcGISProfileFile.maximumBytes)
        #expect(throws: PortalAuthError.self) { try ArcGISProfileFile(text: text, source: "f") }
    }

    /// Many profiles, or many options under `[DEFAULT]` merged into every profile, cost nothing
    /// beyond the bounds: refused at the bound, read in one pass below it.
    @Test func profilesAndOptionsBeyondTheirBoundsAreRefused() throws {
        let many = (0...ArcGISProfileFile.maximumSections).map { "[p\($0)]\n" }.joined()
        #expect(throws: PortalAuthError.self) { try ArcGISProfileFile(text: many, source: "f") }
        let repeated = String(repeating: "[same]\n", count: 100_000)
        #expect(throws: PortalAuthError.self) { try ArcGISProfileFile(text: repeated, source: "f") }
        let options = (0...ArcGISProfileFile.maximumOptions).map { "k\($0) = v\n" }.joined()
        #expect(throws: PortalAuthError.self) { try ArcGISProfileFile(text: "[DEFAULT]\n" + options, source: "f") }
        let allowed = (1..<ArcGISProfileFile.maximumSections).map { "[p\($0)]\nurl = u\n" }.joined()
        #expect(
            try ArcGISProfileFile(text: allowed, source: "f").sections.count == ArcGISProfileFile.maximumSections - 1)
    }

    @Test func eachProfileSaysWhatItBecomesAndWhereItsPasswordIs() throws {
        func profile(_ options: [String: String], _ source: ArcGISProfile.Source = .portal) -> ArcGISProfile {
            ArcGISProfile(ArcGISProfileFile.Section(name: "p", options: options), source: source)
        }
        // GIS() without a url is ArcGIS Online; a server profile has no default.
        #expect(profile(["username": "u"]).signIn == .password(url: "https://www.arcgis.com", username: "u"))
        #expect(profile(["username": "u"], .server).signIn == .unusable("it has no url"))
        #expect(profile(["url": "https://h/portal", "username": "None"]).signIn.isUnusable)
        #expect(profile(["url": "https://h/portal", "key_file": "k"]).signIn.isUnusable)
        #expect(
            profile(["url": "https://h/portal", "cert_file": "c", "client_id": "x", "username": "u"]).signIn
                == .clientCertificate(url: "https://h/portal", keyFile: nil, certFile: "c"))
        #expect(
            profile([:]).keyringServices == [
                "arcgis_python_api_profile_passwords", "p@arcgis_python_api_profile_passwords",
            ])
        #expect(
            profile([:], .server).keyringServices == ["esri_ags_profile_passwords", "p@esri_ags_profile_passwords"])
        #expect(ArcGISProfile.Source.server.fileName == ".agsprofile")
    }
}

extension ArcGISProfile.SignIn {
    var isUnusable: Bool {
        if case .unusable = self { return true }
        return false
    }
}
