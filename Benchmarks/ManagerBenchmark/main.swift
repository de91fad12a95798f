// Benchmark: 1,000 concurrent requests through one AuthenticationManager against portal-emulator.
// Prints the number of token requests the emulator served and the throughput of the challenged
// burst against the same burst with the token already set. Figures, not pass/fail.
import Foundation
import PortalAuth
import PortalAuthToken
import PortalEmulator

let count = Int(ProcessInfo.processInfo.environment["BENCH_REQUESTS"] ?? "1000") ?? 1000
let rounds = Int(ProcessInfo.processInfo.environment["BENCH_ROUNDS"] ?? "3") ?? 3

let emulator = try await PortalEmulator.start(.default)
let url = URL(string: emulator.portalURL + "/sharing/rest/community/self")!

func burst(_ manager: AuthenticationManager) async throws -> Duration {
    let clock = ContinuousClock()
    return try await clock.measure {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<count { group.addTask { _ = try await manager.send(ArcGISRequest(url: url)) } }
            try await group.waitForAll()
        }
    }
}

func makeManager() -> AuthenticationManager {
    let manager = AuthenticationManager(
        backend: MemoryCredentialBackend(),
        transport: CurlTransport(configuration: TransportConfiguration(caBundlePath: emulator.caCertificatePath)))
    manager.register(
        TokenAuthenticationHandler(
            provider: StaticUsernamePasswordProvider(username: "alice", password: "alice-pass-123")))
    return manager
}

func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }

var challenged: [Double] = [], preset: [Double] = []
var tokenRequests: [Int] = []
for _ in 0..<rounds {
    // Challenged: no credential, every request hits 499 and they share one sign-in.
    emulator.resetCounters()
    let manager = makeManager()
    challenged.append(seconds(try await burst(manager)))
    tokenRequests.append(emulator.counters().generateTokenRequests)
    // Preset: the same manager, its token already set (warm connections on both sides).
    preset.append(seconds(try await burst(manager)))
}
let c = challenged.sorted()[rounds / 2], p = preset.sorted()[rounds / 2]
print("manager burst: \(count) concurrent requests, median of \(rounds) rounds")
print(
    String(format: "  challenged (no credential):   %.3f s  %8.0f req/s", c, Double(count) / c)
        + "  token requests per round: " + tokenRequests.map(String.init).joined(separator: ","))
print(String(format: "  token already set:            %.3f s  %8.0f req/s", p, Double(count) / p))
print(String(format: "  throughput ratio challenged/preset: %.2f (target >= 0.80)", p / c))
try await emulator.shutdown()
