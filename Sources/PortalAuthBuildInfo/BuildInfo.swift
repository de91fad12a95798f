/// What this build of `portal-auth` is: the version, and the commit it was built from (one target,
/// so that the small `portal-auth` and `portal-auth-full` print the same `--version`).
///
/// The commit is written in at build time by the `BuildCommit` plugin (`BuildPlugins/`), from
/// the git checkout being built (`0.1.0 (abc1234)`, with `-dirty` when tracked files have
/// uncommitted changes); only a build without git or outside a checkout says
/// `0.1.0 (development build)`. `scripts/package.sh` writes ``releaseCommit`` for its release
/// build (the commit before its own rewrite of this file) and puts the file back afterwards.
/// The version is changed here, by hand, and the package's version is read from here.
public enum BuildInfo {
    /// The release this source tree is.
    public static let version = "0.1.0"
    /// The commit `scripts/package.sh` names for a release build; nil otherwise.
    public static let releaseCommit: String? = nil
    /// The short commit the build was made from; nil without git.
    public static var commit: String? { releaseCommit ?? BuildCommit.value }

    /// What `--version` prints: `0.1.0 (abc1234)`, or `0.1.0 (development build)`.
    public static var versionLine: String { "\(version) (\(commit ?? "development build"))" }
}
