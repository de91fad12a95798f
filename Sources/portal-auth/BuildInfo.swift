/// What this build of `portal-auth` is: the version, and the commit it was built from.
///
/// The committed file names no commit (`--version` prints `0.1.0 (development build)`).
/// `scripts/package.sh` writes the commit in (`0.1.0 (abc1234)`, with `-dirty` when the tree had
/// uncommitted changes) for its release build and puts this file back afterwards; nothing else
/// rewrites it. The version is changed here, by hand, and the package's version is read from here.
enum BuildInfo {
    /// The release this source tree is.
    static let version = "0.1.0"
    /// The short commit the build was made from; nil in a development build.
    static let commit: String? = nil

    /// What `--version` prints: `0.1.0 (abc1234)`, or `0.1.0 (development build)`.
    static var versionLine: String { "\(version) (\(commit ?? "development build"))" }
}
