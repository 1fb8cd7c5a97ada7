// The `websocket-decoder` fuzz target: arbitrary bytes as a peer's WebSocket stream (FuzzTargets).

import FuzzSupport

/// libFuzzer's per-input callback.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTargets.websocketDecoder(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

LibFuzzerMain.run(testOneInput)
