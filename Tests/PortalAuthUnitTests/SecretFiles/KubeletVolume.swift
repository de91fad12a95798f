import Foundation

/// A folder laid out and updated as the kubelet's `AtomicWriter` lays out and updates a Secret
/// volume (pkg/volume/util/atomic_writer.go), step for step: each version of the Secret is a
/// timestamped folder (`..2026_11_28_10_00_00.123456789`); `..data` is a link to the current one;
/// each key is a link `KEY -> ..data/KEY`. A new version is written to a new timestamped folder,
/// a link `..data_tmp` to it is made and renamed over `..data` (the atomic swap), the keys'
/// links are made if missing, and the old folder is removed.
final class KubeletVolume {
    /// The volume's mount point (what a pod's `mountPath` shows).
    let path: String
    private let folder = SecretFolder()
    private var version = 0

    init() { path = folder.path }

    /// Projects `payload` (key: contents) as the Secret's next version, files mode `mode`
    /// (the volume's `defaultMode`).
    func project(_ payload: [String: String], mode: mode_t = 0o400) {
        version += 1
        let previous = (try? FileManager.default.destinationOfSymbolicLink(atPath: path + "/..data"))
        // 1. The new timestamped folder, with the payload.
        let stamped = String(format: "..2026_11_28_10_%02d_00.%09d", version, 123_456_789 + version)
        mkdir(path + "/" + stamped, 0o755)
        for (key, contents) in payload {
            let file = path + "/" + stamped + "/" + key
            let descriptor = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
            let bytes = Array(contents.utf8)
            _ = Glibc.write(descriptor, bytes, bytes.count)
            close(descriptor)
            chmod(file, mode)
        }
        // 2. ..data_tmp -> the new folder, renamed over ..data.
        precondition(symlink(stamped, path + "/..data_tmp") == 0)
        precondition(rename(path + "/..data_tmp", path + "/..data") == 0)
        // 3. The keys' links through ..data, made once.
        for key in payload.keys where access(path + "/" + key, F_OK) != 0 {
            _ = symlink("..data/" + key, path + "/" + key)
        }
        // 4. The old folder goes.
        if let previous { try? FileManager.default.removeItem(atPath: path + "/" + previous) }
    }
}
