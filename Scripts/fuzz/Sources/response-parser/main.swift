// The `response-parser` fuzz target: arbitrary bytes as a server's response stream (FuzzTargets).

import FuzzSupport

/// libFuzzer's per-input callback.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTargets.responseParser(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

LibFuzzerMain.run(testOneInput)
