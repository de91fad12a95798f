import PortalAuth
import PortalAuthServe

#if canImport(Glibc)
import Glibc
#endif

/// Where `serve` listens: the socket systemd passed (socket activation, `portal-auth-serve.socket`),
/// else `--listen`'s address, bound here. A port another user holds is a squat: every URL with the
/// secret may have gone to their listener, so the secret is replaced before serve exits.
enum ServeListener {
    /// What to do when the port is taken.
    enum InUse: Equatable {
        /// By a process of this user (another serve, say): nothing may have leaked.
        case ownProcess
        /// By another user (`uid`), or by a listener nobody can be named for (nil): the secret
        /// may have reached them.
        case otherUser(uid: UInt32?)
    }

    /// What `--listen` names.
    enum Listen {
        /// A loopback address and port.
        case tcp(LoopbackAddress)
        /// `unix:PATH`: a Unix socket.
        case unix(String)

        /// `unix:PATH`, else a loopback address (an error for any other).
        static func parse(_ text: String) throws -> Listen {
            if text.hasPrefix("unix:") { return .unix(String(text.dropFirst("unix:".count))) }
            return .tcp(try LoopbackAddress.parse(text, defaultPort: Serve.defaultPort))
        }
    }

    /// The socket to serve on: systemd's, else `listen`'s. A port in use is an error naming who
    /// holds it; when another user does (or nobody can be named), `replaceSecret` runs first, and
    /// the error says it did. (A Unix socket's folder is the user's alone: nobody else can take it.)
    static func socket(listen: Listen, replaceSecret: () throws -> Void) throws -> ListeningSocket {
        let passed = try ListeningSocket.systemdActivated(
            listenPID: environmentVariable("LISTEN_PID"), listenFDs: environmentVariable("LISTEN_FDS"))
        for name in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] { unsetenv(name) }
        if let passed { return passed }
        switch listen {
        case .tcp(let address): return try socket(address, replaceSecret: replaceSecret)
        case .unix(let path):
            do {
                return try ListeningSocket.unix(path: path)
            } catch let error as PortalAuthError where ListeningSocket.isAddressInUse(error) {
                throw PortalAuthError(
                    .invalidConfiguration,
                    "\(path) is already in use by a process of your own (another portal-auth serve?): stop it, or "
                        + "choose another (--listen unix:PATH)", cause: error.cause)
            }
        }
    }

    /// A socket bound to `address`, or the error of a port in use.
    private static func socket(_ address: LoopbackAddress, replaceSecret: () throws -> Void) throws -> ListeningSocket {
        do {
            return try ListeningSocket.bind(address)
        } catch let error as PortalAuthError where ListeningSocket.isAddressInUse(error) {
            let inUse = classify(holders: ProcNetTCP.holders(of: address), me: getuid())
            if case .otherUser = inUse { try replaceSecret() }
            throw PortalAuthError(.invalidConfiguration, message(address, inUse), cause: error.cause)
        }
    }

    /// Another user among `holders` (or none found: a listener that cannot be named is not
    /// assumed to be this user's) is a squat; only this user's own is not.
    static func classify(holders: [UInt32], me: uid_t) -> InUse {
        if let other = holders.first(where: { $0 != me }) { return .otherUser(uid: other) }
        return holders.isEmpty ? .otherUser(uid: nil) : .ownProcess
    }

    /// The one line: what happened and what to do.
    static func message(_ address: LoopbackAddress, _ inUse: InUse) -> String {
        let place = "port \(address.port) on \(address.host)"
        let another = "choose another (--listen \(address.host.contains(":") ? "[::1]" : address.host):PORT)"
        switch inUse {
        case .ownProcess:
            return
                "\(place) is already in use by a process of your own (another portal-auth serve?): stop it "
                + "(ss -ltnp 'sport = :\(address.port)' names it), or \(another)"
        case .otherUser(let uid):
            let who = uid.map { "another user (uid \($0))" } ?? "a process whose user /proc/net/tcp does not name"
            return
                "\(place) is held by \(who): every URL with the old secret may have gone to them, so the secret "
                + "was replaced; free the port or \(another), then paste the new URLs (portal-auth serve url URL)"
        }
    }
}
