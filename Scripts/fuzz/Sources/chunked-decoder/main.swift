// The `chunked-decoder` fuzz target: arbitrary bytes as a chunked body behind a fixed head (FuzzTargets).

import FuzzSupport

/// libFuzzer's per-input callback.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTargets.chunkedDecoder(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

LibFuzzerMain.run(testOneInput)
