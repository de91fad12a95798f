// libFuzzer target FrontDBusReply: see FuzzTargets.frontDBusReply. Built and run by scripts/fuzz.sh.
import CPortalAuthFuzz
import FuzzTargets

#if canImport(Glibc)
import Glibc
#endif

@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTargets.frontDBusReply(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}

exit(pa_fuzz_run(CommandLine.argc, CommandLine.unsafeArgv, testOneInput))
