import PortalAuth
import PortalAuthEnvironment
import PortalAuthIAP
import PortalAuthOAuthApplication
import PortalAuthOAuthUser
import PortalAuthPregeneratedToken

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

// The library says what to do in its own terms (``PortalAuthError/Remedy``); this file is the one
// place that turns a remedy into the portal-auth command or option to use.

extension PortalAuthError {
    /// The line the CLI prints: the message, then what to do with this tool.
    var cliMessage: String {
        guard let advice = remedy.cliAdvice else { return message }
        return "\(message): \(advice)"
    }
}

extension PortalAuthError.Remedy {
    /// One line naming the command to run or the option to give, or nil for ``none``.
    var cliAdvice: String? {
        switch self {
        case .none: return nil
        case .signIn(let signIn): return signIn.cliAdvice
        case .provideHTTPPassword(let url):
            return
                "run portal-auth login --url \(URLRedaction.redact(url.absoluteString)) --username USER "
                + "--password-stdin"
        case .provideClientCertificate(let host, let port):
            return "sign in with portal-auth login --url https://\(host):\(port) --p12 FILE --password-stdin"
        case .trustServer(let host, let port):
            return
                "pass --cacert FILE (or set PORTAL_AUTH_CA_BUNDLE) with its CA, or trust it with portal-auth trust "
                + "\(host):\(port)"
        case .trustServerAgain(let host, let port):
            return
                "if the change is expected, run portal-auth untrust \(host):\(port) and portal-auth trust "
                + "\(host):\(port)"
        case .provideCABundle: return "check the path given by --cacert or PORTAL_AUTH_CA_BUNDLE"
        case .provide(let input): return input.cliAdvice
        case .useHTTPS: return "use the https URL"
        case .allowBasicOverHTTP: return "use its https URL, or allow it explicitly (--allow-basic-over-http)"
        case .fixConfiguration(_, let key):
            // The message names the file and the key already.
            return key == nil ? nil : "the keys are described in config/README.md"
        case .storeAPIKey(let portal): return APIKeyLogin.storeAdvice(portal: portal.url)
        case .fixEnvironment(let variables): return EnvironmentCredentials.advice(fixing: variables)
        case .removeStoredCredential: return "remove it with portal-auth logout"
        case .openSignInPageYourself: return "set BROWSER, or use --no-browser and open the URL yourself"
        case .raiseLimit(let limit, let value): return limit.cliAdvice(value: value)
        case .startSessionBus: return "run under dbus-run-session, or choose --store file"
        case .startSecretService:
            return "start one, for example gnome-keyring-daemon --start --components=secrets, or choose --store file"
        case .unlockKeyring:
            return
                "unlock it, for example printf %s \"$PASS\" | gnome-keyring-daemon --unlock --components=secrets, or "
                + "choose --store file"
        case .checkCredentialStore: return "run portal-auth doctor"
        case .checkURL: return "check the URL"
        case .retryLater: return "try again later"
        case .installLibrary(let package): return "install it, for example apt-get install \(package)"
        case .checkNetwork: return "check the network, the DNS and https_proxy/http_proxy/no_proxy"
        case .useOwnFolder(let path):
            return
                "remove \(path) if you did not make it, or use a folder of your own (lock files: set XDG_RUNTIME_DIR "
                + "or XDG_CACHE_HOME; --store file: set PORTAL_AUTH_FILE_STORE)"
        case .makePrivate(let path): return "run chmod go-rwx \(path)"
        case .moveAside(let path): return "move \(path) aside (mv \(path) \(path).bad) and sign in again"
        case .removeStaleLock(let path):
            return "if no portal-auth command is running, remove \(path) and try again"
        case .reportToAdministrator(let server): return "report it to the administrator of \(server)"
        case .checkClock: return "check this machine's clock and the server's, then run portal-auth login again"
        case .checkAppRegistration:
            return "check --client-id and the app's redirect URLs in its registration (and that it allows sign-in)"
        case .startOver: return "run the same portal-auth login again"
        case .freePort(let port):
            return
                "stop what listens there (ss -ltnp 'sport = :\(port)'), or register another --redirect-url"
        case .checkKerberos(let principal):
            return "check the user name and /etc/krb5.conf, or run kinit \(principal) first"
        case .checkPermissions(let path): return "check that \(path) exists and is writable"
        case .fixSecretFile(let path, let problem): return problem.cliAdvice(path: path)
        }
    }
}

extension SecretFileProblem {
    /// The command that fixes a refused secret file, or what to do in one line.
    func cliAdvice(path: String) -> String {
        switch self {
        case .loosePermissions: return "run chmod 600 \(path)"
        case .notOwned: return "run chown \(geteuid()) \(path) (as root), or give a file of your own"
        case .misnamed(let expected):
            return "name the credential \(expected) (LoadCredential=\(expected):FILE), or remove \(path)"
        case .missing: return "write the secret to \(path), or point the _FILE variable at the file that holds it"
        case .linkOutOfFolder(let target):
            return "point the _FILE variable at \(target) itself, or put the secret in the link's folder"
        default: return PortalAuthError.Remedy.fixSecretFile(path: path, problem: self).description
        }
    }
}

extension PortalAuthError.SignIn {
    /// The `portal-auth login` command for this kind of sign-in.
    var cliAdvice: String {
        let url = serverContext?.url ?? "URL"
        switch kind {
        case OAuthUserCredential.kind:
            return "run portal-auth login --portal \(url) --client-id \(clientID ?? "ID")"
        case OAuthApplicationCredential.kind:
            return
                "run printf %s \"$SECRET\" | portal-auth login --portal \(url) --client-id \(clientID ?? "ID") "
                + "--client-secret-stdin"
        case APIKeyCredential.kind: return APIKeyLogin.storeAdvice(portal: url)
        case PregeneratedTokenCredential.kind:
            return "get a new token and run portal-auth login --url \(url) --token-stdin"
        case IAPCredential.kind:
            return "run portal-auth login --config \(configurationFile ?? "IAP.json (see config/iap.example.json)")"
        default:
            return "run portal-auth login --portal \(url) --username \(username ?? "USER")"
        }
    }
}

extension PortalAuthError.Input {
    /// Where the CLI takes this input from.
    var cliAdvice: String {
        switch self {
        case .username: return "give one with --username"
        case .password: return "pipe it to --password-stdin or type it at the prompt"
        case .token:
            return
                "pipe it to --token-stdin, for example printf %s \"$TOKEN\" | portal-auth login --url URL --token-stdin"
        case .tokenLifetime: return "give --expires-in SECONDS"
        case .apiKey: return "pipe it to --api-key-stdin"
        case .clientID: return "give the app's client ID with --client-id"
        case .clientSecret: return "pipe it to --client-secret-stdin or set PORTAL_AUTH_CLIENT_SECRET"
        case .referer: return "give a one-line --referer, or drop it to bind the token to this machine's IP address"
        }
    }
}

extension PortalAuthError.Limit {
    /// The option that raises this limit (`value` is the limit that was reached).
    func cliAdvice(value: Int) -> String {
        switch self {
        case .signInTimeout:
            return "allow more time with --timeout SECONDS (or timeout_seconds in a --config file; it was \(value))"
        case .requestTimeout:
            return
                "try again when the server is less busy, or allow more time (request: --timeout SECONDS; it was "
                + "\(value) s)"
        case .responseSize:
            return
                "if the server is trusted to send more, raise the limit (request: --max-response-size SIZE or "
                + "PORTAL_AUTH_MAX_RESPONSE_SIZE; it was \(value) bytes)"
        }
    }
}
