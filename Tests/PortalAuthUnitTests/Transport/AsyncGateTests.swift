import PortalAuth
import Testing

/// The host's gate says whether a holder waited for its place: the request loop decides again
/// after a wait (a credential stored meanwhile wins over a decision made before it).
@Suite struct AsyncGateTests {
    @Test func aPlaceGivenByAnotherHolderSaysItWaited() async {
        let gate = AsyncGate(limit: 1)
        #expect(await !gate.acquire())
        let second = Task { await gate.acquire() }
        // (Released once the second holder waits for it: no timing is assumed.)
        while gate.waiting == 0 { await Task.yield() }
        gate.release()
        #expect(await second.value)
        gate.release()
        #expect(await !gate.acquire())
    }
}
