// libFuzzer target PEMClientCertificate: see FuzzTargets.pemClientCertificate. Built and run by scripts/fuzz.sh.
import CPortalAuthFuzz
import FuzzTargets

#if canImport(Glibc)
import Glibc
#endif

@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTargets.pemClientCertificate(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}

exit(pa_fuzz_run(CommandLine.argc, CommandLine.unsafeArgv, testOneInput))
