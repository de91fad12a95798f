internal import CPortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Randomness and hashing from OpenSSL's libcrypto (loaded on first use).
package enum PortalAuthCrypto {
    static func load() throws {
        var buffer = [CChar](repeating: 0, count: 512)
        if pa_crypto_load(&buffer, buffer.count) != 0 {
            let reason = CString.text(buffer)
            throw PortalAuthError(
                .libraryUnavailable,
                "OpenSSL's libcrypto could not be loaded (\(reason))", remedy: .installLibrary(package: "libssl3"),
                cause: .openSSL(message: reason))
        }
    }

    /// `count` bytes from a cryptographically secure generator.
    package static func randomBytes(_ count: Int) throws -> [UInt8] {
        try load()
        var bytes = [UInt8](repeating: 0, count: count)
        guard pa_crypto_random(&bytes, count) == 0 else {
            throw PortalAuthError(
                .internalError, "OpenSSL could not produce random bytes", cause: .openSSL(message: "RAND_bytes failed"))
        }
        return bytes
    }

    /// The SHA-256 digest of `data`.
    package static func sha256(_ data: [UInt8]) throws -> [UInt8] {
        try load()
        var digest = [UInt8](repeating: 0, count: 32)
        guard pa_crypto_sha256(data, data.count, &digest) == 0 else {
            throw PortalAuthError(
                .internalError, "OpenSSL could not compute SHA-256", cause: .openSSL(message: "EVP_Digest failed"))
        }
        return digest
    }

    /// Base64url without padding (RFC 4648 §5), as PKCE uses it.
    package static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacing("+", with: "-").replacing("/", with: "_").replacing("=", with: "")
    }

    /// Hexadecimal, upper-case, with an optional separator (`AA:BB:…` with ":").
    package static func hex(_ bytes: [UInt8], separator: String = "") -> String {
        let digits = Array("0123456789ABCDEF")
        return bytes.map { String([digits[Int($0 >> 4)], digits[Int($0 & 0xF)]]) }.joined(separator: separator)
    }
}
