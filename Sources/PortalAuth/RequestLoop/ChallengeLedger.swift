/// The retry-once rule of one request, in one place: which challenges the request has answered.
///
/// A challenge met again after it was answered means the server refused the answer (a wrong
/// password, a token not valid there, a certificate it does not trust): the request fails with
/// what the server said instead of asking the plugins again.
struct ChallengeLedger {
    /// A challenge, as far as the rule tells challenges apart.
    enum Entry: Hashable {
        /// An ArcGIS challenge (499, 498, 403 `GWM_0003`), on whichever server of the request.
        case arcGIS
        /// A network challenge of one category on one host.
        case network(host: ServerContext, NetworkCredentialCategory)
        /// An identity-aware proxy's sign-in demand for one host.
        case iap(host: ServerContext)
    }

    private var answered = Set<Entry>()

    /// Records that `entry` is being answered. `false` when it was answered already: the retry
    /// is spent and the request must fail.
    mutating func answer(_ entry: Entry) -> Bool {
        answered.insert(entry).inserted
    }
}
