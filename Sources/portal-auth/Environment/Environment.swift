#if canImport(Glibc)
import Glibc
#endif

/// An environment variable's value (getenv: ProcessInfo's environment copies every variable
/// into a dictionary first, which `portal-auth token` can do without).
func environmentVariable(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
}
