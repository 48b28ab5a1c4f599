import SwitchboardFuzzChecks

/// libFuzzer's entry point (it supplies `main`); see FuzzTarget.graphQLCodec.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTarget.graphQLCodec.fuzz(data, size)
}
