public import PortalAuth

/// The random part of `serve`'s base URL (`http://127.0.0.1:PORT/SECRET/`): a capability of 256
/// bits that a local program must know to reach the server. It is kept in the credential store as
/// one item (``ServeSecretItem``, which the library writes), so that it stays the same across
/// restarts and a saved QGIS project keeps working; `renew` replaces it.
public enum ServeSecret {
    /// The stored secret; a new one is made and stored when there is none or `renew` is set.
    public static func current(in backend: any CredentialStorageBackend, renew: Bool = false) throws -> String {
        try ServeSecretItem.current(in: backend, renew: renew, isUsable: isWellFormed) {
            PortalAuthCrypto.base64URL(try PortalAuthCrypto.randomBytes(32))
        }
    }

    /// The stored secret, or nil (nothing is made).
    public static func stored(in backend: any CredentialStorageBackend) throws -> String? {
        try ServeSecretItem.stored(in: backend, isUsable: isWellFormed)
    }

    /// At least 128 bits of base64url text (what ``current(in:renew:)`` makes).
    static func isWellFormed(_ text: String) -> Bool {
        text.utf8.count >= 22 && text.utf8.count <= 128
            && text.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }
    }

    /// Whether `candidate` is `secret`, compared in time that does not depend on where they differ.
    static func matches(_ candidate: Substring, _ secret: String) -> Bool {
        let a = Array(candidate.utf8)
        let b = Array(secret.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
