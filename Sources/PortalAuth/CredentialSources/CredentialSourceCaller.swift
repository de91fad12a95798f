/// Who asks a ``CredentialSource`` whether a URL is its own, which says how far the source may
/// go to find out. The proxy's is the safe choice: a program that forwards requests for others
/// names itself `.proxy`, and only a program that works on a URL it was given names itself
/// `.program`.
public enum CredentialSourceCaller: Sendable, Equatable {
    /// A program working on a URL it was given (a command, a script's request), which contacts
    /// that URL anyway: the source may read what the URL's own server says of itself (its
    /// `rest/info`, naming the portal that owns it).
    case program
    /// A program that forwards requests for others (a local proxy such as `serve`): the source
    /// contacts no host but its own portal, so that the proxy's clients cannot make it contact
    /// hosts that nobody vouched for.
    case proxy
}
