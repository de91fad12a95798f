import CPortalAuthFrontFuzz

extension FuzzTargets {
    /// What the session bus sends the small `portal-auth` (its own D-Bus client in
    /// Sources/CPortalAuthFront/front.c): `read_reply` and `take_secrets` read it to the end or stop,
    /// without a crash, a leak or a read out of bounds (AddressSanitizer checks the C).
    public static func frontDBusReply(_ bytes: [UInt8]) {
        let result = bytes.withUnsafeBufferPointer { pa_front_fuzz_reply($0.baseAddress, $0.count) }
        precondition((-1...1).contains(result), "a result other than 1, 0 or -1")
    }
}
