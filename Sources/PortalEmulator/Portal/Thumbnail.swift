import Foundation

/// The profile picture every user with a thumbnail gets: a real 16×16 RGB PNG.
enum Thumbnail {
    /// The PNG bytes.
    static let png: [UInt8] = Array(
        Data(
            base64Encoded:
                "iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAALElEQVR42mNgqDxIGhoIDb/ubIEjwhqQVWPXMww1kBxKxMaDRtQCgmj4aAAAaz5mUATIrvIAAAAASUVORK5CYII="
        ) ?? Data())

    /// `image/png` answer.
    static var response: OutgoingResponse {
        OutgoingResponse(status: 200, headers: [("Content-Type", "image/png")], body: png)
    }
}
