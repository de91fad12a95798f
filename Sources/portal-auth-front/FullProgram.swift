#if canImport(Glibc)
import Glibc
#endif

/// `portal-auth-full`, the program every command line but `--version` and a recorded `token`
/// answer goes to, with the same arguments (the same `argv[0]` too) and environment: it runs in
/// this process (exec), so its output and exit code are the command's.
enum FullProgram {
    /// Where it is looked for, beside this program's own file first: `portal-auth-full` in the same
    /// folder (the build folder, a tarball's `bin`), then `../libexec/portal-auth/portal-auth-full`
    /// (`/usr/bin` and `/usr/libexec/portal-auth` in the Debian package).
    static func candidates() -> [String] {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return ["/usr/libexec/portal-auth/portal-auth-full"] }
        let bytes = buffer[..<length].map { UInt8(bitPattern: $0) }
        let own = String(decoding: bytes, as: UTF8.self)
        let folder = own.lastIndex(of: "/").map { String(own[..<$0]) } ?? "."
        return [folder + "/portal-auth-full", folder + "/../libexec/portal-auth/portal-auth-full"]
    }

    /// Runs `portal-auth-full` in this process; when none can be run, says so and exits 1.
    static func run() -> Never {
        let argv = CommandLine.unsafeArgv
        var reasons: [String] = []
        for path in candidates() {
            execv(path, argv)
            reasons.append("\(path): \(String(cString: strerror(errno)))")
        }
        var line =
            "portal-auth: cannot run portal-auth-full (\(reasons.joined(separator: "; "))): "
            + "reinstall portal-auth (see docs/install.md)\n"
        PortalAuthFront.writeAll(2, &line)
        exit(1)
    }
}
