#if canImport(Glibc)
import Glibc
#endif

/// A listening socket for a local server (`portal-auth serve`'s, the OAuth redirect's): a TCP socket on a loopback address this process
/// binds (``bind(_:)``) or systemd bound and handed over (``systemdActivated(listenPID:listenFDs:)``,
/// socket activation), on 127.0.0.0/8 or ::1 so that a local server is never reachable from the
/// network; or a Unix socket (``unix(path:)``), 0600 in a folder only its owner may enter.
///
/// The socket is closed when the last copy of the value is released (a server keeps its own), never
/// by whoever uses it: a copy handed to two servers is not closed twice, and one never served on is
/// not left open.
public struct ListeningSocket: Sendable {
    /// Owns the descriptor: closes it once, when the last copy of the socket goes.
    private final class Descriptor: Sendable {
        let fd: Int32
        init(_ fd: Int32) { self.fd = fd }
        deinit { close(fd) }
    }

    private let descriptor: Descriptor
    /// The socket (close-on-exec), open while this value (or a copy) is kept; never closed by its user.
    package var fd: Int32 { descriptor.fd }
    /// Where it listens, with its actual port (a Unix socket: `localhost`, port 80, the authority
    /// its clients name).
    public let address: LoopbackAddress
    /// The Unix socket's path, or nil (TCP).
    public let path: String?

    private init(fd: Int32, address: LoopbackAddress, path: String? = nil) {
        descriptor = Descriptor(fd)
        self.address = address
        self.path = path
    }

    /// The first socket systemd passes (`SD_LISTEN_FDS_START`).
    package static let systemdFirstFD: Int32 = 3

    /// Binds and listens on `address` (port 0: a free one). A port in use is an
    /// `invalidConfiguration` error whose cause is `posix(EADDRINUSE)` (``isAddressInUse(_:)``).
    public static func bind(_ address: LoopbackAddress) throws -> ListeningSocket {
        try bind(address, backlog: LoopbackHTTPServer.backlog)
    }

    /// ``bind(_:)`` with the kernel queueing at most `backlog` connections not yet accepted.
    package static func bind(_ address: LoopbackAddress, backlog: Int32) throws -> ListeningSocket {
        // (Never another address: an unparsed one would be 0.0.0.0, every interface.)
        guard LoopbackAddress.isLoopback(address.host) else {
            throw PortalAuthError(.invalidArgument, "'\(address.host)' is not a loopback address: not listened on")
        }
        let family = address.isIPv6 ? AF_INET6 : AF_INET
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw posixError("open a socket") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var storage = sockaddr_storage()
        var length: socklen_t
        if address.isIPv6 {
            var v6 = sockaddr_in6()
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(address.port).bigEndian)
            _ = inet_pton(AF_INET6, address.host, &v6.sin6_addr)
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: v6, as: sockaddr_in6.self) }
        } else {
            var v4 = sockaddr_in()
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = in_port_t(UInt16(address.port).bigEndian)
            _ = inet_pton(AF_INET, address.host, &v4.sin_addr)
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: v4, as: sockaddr_in.self) }
        }
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, backlog) == 0 else {
            let code = errno
            close(fd)
            if code == EADDRINUSE {
                throw PortalAuthError(
                    .invalidConfiguration, "\(address) is already in use", remedy: .freePort(address.port),
                    cause: .posix(code: code, message: String(cString: strerror(code))))
            }
            throw posixError("listen on \(address)", code: code)
        }
        guard let actual = localAddress(fd) else {
            close(fd)
            throw posixError("read the address of the socket on \(address)")
        }
        return ListeningSocket(fd: fd, address: actual)
    }

    /// Whether `error` is ``bind(_:)``'s "the port is in use".
    public static func isAddressInUse(_ error: PortalAuthError) -> Bool {
        if case .posix(let code, _)? = error.cause { return code == EADDRINUSE }
        return false
    }

    /// The socket systemd passed to this process (socket activation: `LISTEN_PID` is this
    /// process and `LISTEN_FDS` is 1; the socket is fd 3), or nil when none was passed (no
    /// `LISTEN_PID`, or another process's). A passed socket that is not one listening TCP socket
    /// on a loopback address is an `invalidConfiguration` error: nothing is served on it. The
    /// caller unsets the variables, so no child takes them for its own.
    public static func systemdActivated(listenPID: String?, listenFDs: String?) throws -> ListeningSocket? {
        guard let listenPID, Int32(listenPID) == getpid() else { return nil }
        guard listenFDs == "1" else {
            throw PortalAuthError(
                .invalidConfiguration,
                "systemd passed \(listenFDs.map { "LISTEN_FDS=\($0)" } ?? "no LISTEN_FDS"): exactly one socket "
                    + "(ListenStream=127.0.0.1:PORT) is served")
        }
        let fd = systemdFirstFD
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        var type: Int32 = 0
        var listening: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        let isStream = getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &size) == 0 && type == Int32(SOCK_STREAM.rawValue)
        size = socklen_t(MemoryLayout<Int32>.size)
        let isListening = getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) == 0 && listening == 1
        guard isStream, isListening, let address = localAddress(fd), LoopbackAddress.isLoopback(address.host)
        else {
            throw PortalAuthError(
                .invalidConfiguration,
                "the socket systemd passed is not a listening TCP socket on a loopback address "
                    + "(ListenStream=127.0.0.1:PORT, or [::1]:PORT), so nothing is served on it")
        }
        return ListeningSocket(fd: fd, address: address)
    }

    /// Binds and listens on a Unix socket at `path` (mode 0600), in a folder that is this user's and
    /// that nobody else may enter (no permission for group or others): otherwise another user could
    /// reach the socket, or put theirs in its place. A socket left at `path` by a process that
    /// ended is replaced; one that answers is in use (``isAddressInUse(_:)``).
    public static func unix(path: String) throws -> ListeningSocket {
        let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        var info = stat()
        guard lstat(folder.isEmpty ? "/" : folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR,
            info.st_uid == getuid(), info.st_mode & 0o077 == 0
        else {
            throw PortalAuthError(
                .invalidConfiguration,
                "\(folder.isEmpty ? "/" : folder) is not a folder of this user's that only they may enter, so a "
                    + "socket in it is not private", remedy: .makePrivate(path: folder.isEmpty ? "/" : folder))
        }
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count < MemoryLayout.size(ofValue: socketAddress.sun_path), !bytes.contains(0)
        else {
            throw PortalAuthError(.invalidArgument, "'\(path)' is not a Unix socket path (at most 107 bytes)")
        }
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { $0.copyBytes(from: bytes) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw posixError("open a socket") }
        let length = socklen_t(MemoryLayout<sockaddr_un>.size)
        func call(_ body: (UnsafePointer<sockaddr>) -> Int32) -> Int32 {
            withUnsafePointer(to: &socketAddress) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
        }
        if lstat(path, &info) == 0 {
            let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            let answers = call { connect(probe, $0, length) } == 0
            close(probe)
            guard info.st_mode & S_IFMT == S_IFSOCK, !answers else {
                close(fd)
                throw PortalAuthError(
                    .invalidConfiguration, answers ? "\(path) is already in use" : "\(path) is not a socket",
                    cause: answers ? .posix(code: EADDRINUSE, message: String(cString: strerror(EADDRINUSE))) : nil)
            }
            unlink(path)
        }
        guard call({ Glibc.bind(fd, $0, length) }) == 0, chmod(path, 0o600) == 0,
            listen(fd, LoopbackHTTPServer.backlog) == 0
        else {
            let code = errno
            close(fd)
            throw posixError("listen on \(path)", code: code)
        }
        return ListeningSocket(fd: fd, address: LoopbackAddress(host: "localhost", port: 80), path: path)
    }

    /// The IPv4 or IPv6 address `fd` is bound to, or nil (another family, or not a socket).
    private static func localAddress(_ fd: Int32) -> LoopbackAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { return nil }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = Int32(storage.ss_family)
        return withUnsafeBytes(of: storage) { bytes -> LoopbackAddress? in
            // sin_port and sin6_port sit at the same offset, in network order.
            let port = Int(UInt16(bytes[2]) << 8 | UInt16(bytes[3]))
            switch family {
            case AF_INET:
                guard inet_ntop(AF_INET, bytes.baseAddress! + 4, &text, socklen_t(text.count)) != nil else {
                    return nil
                }
            case AF_INET6:
                guard inet_ntop(AF_INET6, bytes.baseAddress! + 8, &text, socklen_t(text.count)) != nil else {
                    return nil
                }
            default: return nil
            }
            return LoopbackAddress(
                host: String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), port: port
            )
        }
    }

    private static func posixError(_ what: String, code: Int32 = errno) -> PortalAuthError {
        let text = String(cString: strerror(code))
        return PortalAuthError(.connectionFailed, "cannot \(what): \(text)", cause: .posix(code: code, message: text))
    }
}
