import SwitchboardFuzzChecks

/// libFuzzer's entry point (it supplies `main`); see FuzzTarget.appSyncCodec.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTarget.appSyncCodec.fuzz(data, size)
}
