/// A sign-in the ArcGIS API for Python saved as a profile (`GIS(url, username, password,
/// profile="name")`): a section of `~/.arcgisprofile` (portals) or `~/.agsprofile` (ArcGIS
/// Servers), whose password the Python `keyring` module keeps in the Secret Service.
///
/// ``signIn`` says, without I/O, what the profile becomes in portal-auth; a program verifies it
/// against the server before anything is stored.
public struct ArcGISProfile: Sendable, Equatable {
    /// Which of the API's files a profile comes from.
    public enum Source: String, Sendable, Hashable, CaseIterable {
        /// `~/.arcgisprofile`: portals (`arcgis.gis.GIS`).
        case portal
        /// `~/.agsprofile`: ArcGIS Servers (`arcgis.gis.server.Server`).
        case server

        /// The file's name in the home folder.
        public var fileName: String { self == .portal ? ".arcgisprofile" : ".agsprofile" }

        /// The `keyring` service the API keeps this file's passwords under.
        public var keyringService: String {
            self == .portal ? "arcgis_python_api_profile_passwords" : "esri_ags_profile_passwords"
        }
    }

    /// What a profile becomes.
    public enum SignIn: Sendable, Equatable {
        /// A token sign-in with the password kept in the keyring.
        case password(url: String, username: String)
        /// An OAuth user sign-in with the app `clientID` (the keyring holds the refresh token the
        /// API saved, if any).
        case oauthUser(url: String, clientID: String)
        /// A client certificate (PKI) in PEM files.
        case clientCertificate(url: String, keyFile: String?, certFile: String)
        /// Nothing can be made of it, for this reason.
        case unusable(String)
    }

    /// The profile's name (its section).
    public var name: String
    /// The file it comes from.
    public var source: Source
    /// Its options (`url`, `username`, `client_id`, `key_file`, `cert_file`, `date_modified`).
    public var options: [String: String]

    /// A profile from a section of a file of `source`.
    public init(_ section: ArcGISProfileFile.Section, source: Source) {
        name = section.name
        self.source = source
        options = section.options
    }

    /// The profiles of a file's text.
    public static func profiles(text: String, source: Source, path: String) throws -> [ArcGISProfile] {
        try ArcGISProfileFile(text: text, source: path).sections.map { ArcGISProfile($0, source: source) }
    }

    /// The `keyring` services the profile's password may be under, in the order the API reads
    /// them: the API's own, then `name@service` (the name Windows' credential manager shows, which
    /// scripts copy).
    public var keyringServices: [String] { [source.keyringService, "\(name)@\(source.keyringService)"] }

    /// The profile's URL: its `url`, or ArcGIS Online for a portal profile without one (as
    /// `GIS()` defaults).
    public var url: String? {
        if let url = value("url") { return url }
        return source == .portal ? "https://www.arcgis.com" : nil
    }

    /// What the profile becomes: a client certificate when it names a certificate file, an OAuth
    /// user sign-in when it names a `client_id`, otherwise a password sign-in of its `username`.
    public var signIn: SignIn {
        guard let url else { return .unusable("it has no url") }
        if let certFile = value("cert_file") {
            return .clientCertificate(url: url, keyFile: value("key_file"), certFile: certFile)
        }
        if value("key_file") != nil { return .unusable("it names a key_file without a cert_file") }
        if let clientID = value("client_id") { return .oauthUser(url: url, clientID: clientID) }
        guard let username = value("username") else {
            return .unusable("it has no username (a profile for Windows or Kerberos sign-in, which keeps no password)")
        }
        return .password(url: url, username: username)
    }

    /// An option's value, nil when absent, empty or Python's `None`.
    func value(_ key: String) -> String? {
        guard let value = options[key], !value.isEmpty, value != "None" else { return nil }
        return value
    }
}
