import Foundation
import Testing

@testable import PortalAuth

/// The answer book's text: what the small `portal-auth` reads (Sources/portal-auth-front), kept
/// within its limits and dropped whole when the item index it stood on changed.
@Suite struct KeyringAnswerBookTests {
    let stamp: [UInt64] = [1, 2, 3, 4, 5, 6, 7]

    @Test func theTokenIsCutOutOfTheOutputAndFoundOnceInItsSecret() {
        #expect(
            KeyringAnswerBook.pieces(of: "Authorization: Bearer T0K\n", around: "T0K") == [
                "Authorization: Bearer ", "\n",
            ])
        #expect(KeyringAnswerBook.pieces(of: "T0K T0K\n", around: "T0K") == ["", " ", "\n"])
        #expect(KeyringAnswerBook.onlyRange(of: "T0K", in: #"{"token":"T0K","x":1}"#) == 10..<13)
        // Twice in the secret: which one is the token cannot be told; none is kept.
        #expect(KeyringAnswerBook.onlyRange(of: "T0K", in: #"{"token":"T0K","old":"T0K"}"#) == nil)
        #expect(KeyringAnswerBook.onlyRange(of: "T0K", in: #"{"token":"T0\/K"}"#) == nil)
        #expect(KeyringAnswerBook.hex("a\u{0}é") == "6100c3a9")
        // GLib's SHA-256, which the small program's own computes alike (sha256.c).
        #expect(
            KeyringAnswerBook.sha256("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func entriesAreKeptNewestLastOnePerKeyWithinTheLimits() throws {
        var text = try #require(KeyringAnswerBook.text(adding: "answer 61 - x", key: "61", stamp: stamp, to: nil))
        #expect(text == "portal-auth token answers 2\nstamp 1 2 3 4 5 6 7\nanswer 61 - x\n")
        text = try #require(KeyringAnswerBook.text(adding: "answer 62 - y", key: "62", stamp: stamp, to: text))
        text = try #require(KeyringAnswerBook.text(adding: "answer 61 - z", key: "61", stamp: stamp, to: text))
        #expect(text.hasSuffix("answer 62 - y\nanswer 61 - z\n") && !text.contains(" x\n"))
        // Another index: the old answers go.
        let other = try #require(KeyringAnswerBook.text(adding: "answer 63 - w", key: "63", stamp: [9], to: text))
        #expect(other == "portal-auth token answers 2\nstamp 9\nanswer 63 - w\n")
        // At most `capacity` answers, the oldest dropped first.
        for key in 0..<(KeyringAnswerBook.capacity + 3) {
            text = try #require(
                KeyringAnswerBook.text(adding: "answer k\(key) - v", key: "k\(key)", stamp: stamp, to: text))
        }
        #expect(text.split(separator: "\n").count == 2 + KeyringAnswerBook.capacity)
        #expect(!text.contains("answer k2 ") && text.contains("answer k3 "))
        // An answer larger than the file may be is not kept.
        let huge = "answer 64 - " + String(repeating: "a", count: KeyringAnswerBook.maximumSize)
        #expect(KeyringAnswerBook.text(adding: huge, key: "64", stamp: stamp, to: text) == nil)
    }
}
