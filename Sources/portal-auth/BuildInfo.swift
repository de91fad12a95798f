/// What this build of `portal-auth` is: the version, and the commit it was built from.
///
/// The commit is written in at build time by the `BuildCommit` plugin (`BuildPlugins/`), from
/// the git checkout being built (`0.1.0 (abc1234)`, with `-dirty` when tracked files have
/// uncommitted changes); only a build without git or outside a checkout says
/// `0.1.0 (development build)`. `scripts/package.sh` writes ``releaseCommit`` for its release
/// build (the commit before its own rewrite of this file) and puts the file back afterwards.
/// The version is changed here, by hand, and the package's version is read from here.
enum BuildInfo {
    /// The release this source tree is.
    static let version = "0.1.0"
    /// The commit `scripts/package.sh` names for a release build; nil otherwise.
    static let releaseCommit: String? = nil
    /// The short commit the build was made from; nil without git.
    static var commit: String? { releaseCommit ?? BuildCommit.value }

    /// What `--version` prints: `0.1.0 (abc1234)`, or `0.1.0 (development build)`.
    static var versionLine: String { "\(version) (\(commit ?? "development build"))" }
}
