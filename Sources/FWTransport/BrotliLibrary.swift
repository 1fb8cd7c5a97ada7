#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - BrotliLibrary
//
// libbrotlidec's streaming decoder, found at run time with dlopen/dlsym: brotli is decoded when the library
// is installed (Debian's libbrotli1) and no binary links it (the static fwcurl keeps its library list,
// Scripts/check-deps.sh). The four entry points are called through C function pointers of the exact C
// signatures (decode.h of brotli 1.0 and later); the library stays loaded for the life of the process.

/// The libbrotlidec entry points the decoder calls, or none when the library is not installed.
struct BrotliLibrary: @unchecked Sendable { // immutable after loading: C function pointers and a dlopen handle
    /// `BrotliDecoderCreateInstance(alloc_func, free_func, opaque)`: NULL allocators mean malloc and free.
    typealias CreateInstance = @convention(c) (UnsafeRawPointer?, UnsafeRawPointer?, UnsafeMutableRawPointer?)
        -> OpaquePointer?
    /// `BrotliDecoderDestroyInstance(state)`.
    typealias DestroyInstance = @convention(c) (OpaquePointer?) -> Void
    /// `BrotliDecoderDecompressStream(state, &available_in, &next_in, &available_out, &next_out, &total_out)`.
    typealias DecompressStream = @convention(c) (
        OpaquePointer?, UnsafeMutablePointer<Int>?, UnsafeMutablePointer<UnsafePointer<UInt8>?>?,
        UnsafeMutablePointer<Int>?, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?, UnsafeMutablePointer<Int>?
    ) -> Int32
    /// `BrotliDecoderErrorString(BrotliDecoderGetErrorCode(state))`, in two calls.
    typealias ErrorCode = @convention(c) (OpaquePointer?) -> Int32
    typealias ErrorString = @convention(c) (Int32) -> UnsafePointer<CChar>?

    /// `BrotliDecoderResult` values.
    static let resultError: Int32 = 0
    static let resultSuccess: Int32 = 1
    static let resultNeedsMoreInput: Int32 = 2
    static let resultNeedsMoreOutput: Int32 = 3

    /// The soname Debian's libbrotli1 installs.
    static let soname = "libbrotlidec.so.1"

    /// The library of this process, loaded at first use; nil when it is not installed.
    static let shared = BrotliLibrary(soname: soname)

    let createInstance: CreateInstance
    let destroyInstance: DestroyInstance
    let decompressStream: DecompressStream
    private let errorCode: ErrorCode
    private let errorString: ErrorString

    /// Loads `soname`; nil when it cannot be loaded or lacks an entry point.
    init?(soname: String) {
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else { return nil }
        func symbol<Function>(_ name: String, _ type: Function.Type) -> Function? {
            dlsym(handle, name).map { unsafeBitCast($0, to: type) }
        }
        guard let create = symbol("BrotliDecoderCreateInstance", CreateInstance.self),
              let destroy = symbol("BrotliDecoderDestroyInstance", DestroyInstance.self),
              let decompress = symbol("BrotliDecoderDecompressStream", DecompressStream.self),
              let code = symbol("BrotliDecoderGetErrorCode", ErrorCode.self),
              let string = symbol("BrotliDecoderErrorString", ErrorString.self) else {
            dlclose(handle)
            return nil
        }
        createInstance = create
        destroyInstance = destroy
        decompressStream = decompress
        errorCode = code
        errorString = string
    }

    /// libbrotlidec's name for the error that stopped `state` (such as `_ERROR_FORMAT_PADDING_1`).
    func errorDescription(_ state: OpaquePointer) -> String {
        let code = errorCode(state)
        return errorString(code).map { String(cString: $0) } ?? "error \(code)"
    }
}
