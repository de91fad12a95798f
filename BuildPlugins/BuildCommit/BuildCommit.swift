import Foundation
import PackagePlugin

/// Writes `BuildCommit.swift` for `portal-auth` before every build: the commit the source tree
/// is checked out at (`abc1234`, `abc1234-dirty` with uncommitted changes to tracked files), or
/// nil where there is no git or no checkout (a tarball of the sources). `--version` prints it.
///
/// It runs `/bin/sh` (prebuild commands take an executable that is already there), and rewrites
/// the file only when its text changes, so an unchanged tree recompiles nothing.
@main
struct BuildCommitPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "BuildCommit")
        let script = #"""
            set -u
            root=$1 out=$2/BuildCommit.swift
            mkdir -p "$2"
            value=nil
            if commit=$(git -C "$root" rev-parse --short=7 HEAD 2>/dev/null) && [ -n "$commit" ]; then
              git -C "$root" diff --quiet HEAD -- 2>/dev/null || commit="$commit-dirty"
              value="\"$commit\""
            fi
            text="// Written by the BuildCommit plugin at build time.
            enum BuildCommit {
                /// The commit the build was made from; nil without git.
                static let value: String? = $value
            }"
            [ "$(cat "$out" 2>/dev/null)" = "$text" ] || printf '%s\n' "$text" >"$out"
            """#
        return [
            .prebuildCommand(
                displayName: "BuildCommit: the commit for portal-auth --version",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", script, "sh", context.package.directoryURL.path, output.path],
                outputFilesDirectory: output)
        ]
    }
}
