// What each libFuzzer target checks with one input: a parser of bytes a server, a file or the
// credential store hands portal-auth. The fuzz executables (Fuzz/Fuzz*/main.swift, run by
// scripts/fuzz.sh) and the corpus replay test (FuzzCorpusTests) share these bodies, so every
// seed and every crash kept in Fuzz/Corpus/NAME runs in the ordinary test suite too.
import PortalAuth

/// The parsers under fuzzing, by target name.
public enum FuzzTargets {
    /// Every target: its name (the folder under `Fuzz/Corpus`) and its body.
    public static let all: [(name: String, body: @Sendable ([UInt8]) -> Void)] = [
        ("ArcGISJSON", arcGISJSON),
        ("PKCS12", pkcs12),
    ]

    /// ArcGIS JSON answers and error bodies (every response passes through both).
    public static func arcGISJSON(_ bytes: [UInt8]) {
        if let value = try? JSONValue.parse(bytes, source: "fuzz") { _ = value.description }
        _ = ArcGISError.parse(bytes)
    }

    /// PKCS#12 inspection through OpenSSL (C): the first byte picks a password, the rest is the file.
    public static func pkcs12(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        let passwords = ["", "changeit", "test-p12-password", "\u{0}x"]
        _ = try? PKCS12Bundle(bytes: Array(bytes.dropFirst()), password: passwords[Int(first) % passwords.count])
    }
}
