import Foundation
import SwitchboardFuzzChecks

// libFuzzer's runtime, linked by -sanitize=fuzzer, brings its own `main`, but SwiftPM points
// `main` at each executable's top-level code (on Linux with --defsym), so that code starts
// libFuzzer through its documented driver entry point instead.
@_extern(c, "LLVMFuzzerRunDriver")
private func runDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// The target being fuzzed; set once, before libFuzzer starts.
nonisolated(unsafe) private var selected = FuzzTarget.appSyncCodec

/// The callback libFuzzer's runtime requires by name.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    selected.fuzz(data, size)
}

extension FuzzTarget {
    /// Runs libFuzzer on this target with the process's arguments and exits with its status.
    package func runFuzzer() -> Never {
        selected = self
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(runDriver(&argc, &argv, fuzzOneInput))
    }
}
