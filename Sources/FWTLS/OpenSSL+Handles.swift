import CFWOpenSSL
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// Reference-counted OpenSSL objects as Swift classes (freed on deinit), the error queue as text, and
// the copy-out helpers every accessor uses. Nothing here is public.

// MARK: - Handles

/// One X509, owned.
///
/// `@unchecked Sendable`: the certificate is never mutated after decoding; OpenSSL caches derived data
/// (extensions, hashes) inside the X509 under its own lock, so concurrent readers are safe.
final class X509Handle: @unchecked Sendable { // never mutated after creation (see above)
    let pointer: OpaquePointer

    /// Takes over one reference the caller owns.
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// Takes a new reference to a certificate someone else owns.
    init(retaining pointer: OpaquePointer) {
        X509_up_ref(pointer)
        self.pointer = pointer
    }

    deinit {
        X509_free(pointer)
    }
}

/// One EVP_PKEY (a private key), owned.
///
/// `@unchecked Sendable`: the key is never mutated after decoding; OpenSSL 3 keys are safe to share
/// between threads for signing.
final class PrivateKeyHandle: @unchecked Sendable { // never mutated after creation (see above)
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }
}

/// One X509_STORE of trust anchors, owned.
///
/// `@unchecked Sendable`: filled once at creation and then only read by X509_verify_cert, which locks
/// the store internally (including the lazy loads of the system's hashed certificate directory).
final class X509StoreHandle: @unchecked Sendable { // never mutated after creation (see above)
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        X509_STORE_free(pointer)
    }
}

/// A STACK_OF(X509) built for one call and freed at the end of `body`.
func withX509Stack<R, E: Error>(
    _ certificates: some Sequence<Certificate>, _ body: (OpaquePointer?) throws(E) -> R
) throws(E) -> R {
    guard let stack = fw_x509_stack_new() else { return try body(nil) }
    defer { fw_x509_stack_free(stack) }
    for certificate in certificates {
        fw_x509_stack_push(stack, certificate.handle.pointer)
    }
    return try body(stack)
}

/// The certificates of a STACK_OF(X509) the caller keeps owning.
func certificates(inStack stack: OpaquePointer?) -> [Certificate] {
    guard let stack else { return [] }
    var result: [Certificate] = []
    for index in 0..<fw_x509_stack_count(stack) {
        if let pointer = fw_x509_stack_get(stack, index), let certificate = Certificate(retaining: pointer) {
            result.append(certificate)
        }
    }
    return result
}

// MARK: - Error queue

/// OpenSSL's error queue of this thread as text, and the reason code of its first entry. Empties it.
struct OpenSSLErrors {
    let firstReason: Int32
    let text: String

    static func drain() -> OpenSSLErrors {
        var reason: Int32 = 0
        var lines: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            if reason == 0 { reason = fw_err_reason(code) }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            lines.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return OpenSSLErrors(firstReason: reason, text: lines.joined(separator: "; "))
    }
}

// MARK: - Copy-out helpers

/// Calls an OpenSSL function that allocates `length` bytes into its out-pointer, copies them, and frees
/// the original. nil when the call returns a negative length.
func copyAllocatedBytes(_ call: (inout UnsafeMutablePointer<UInt8>?) -> Int32) -> [UInt8]? {
    var pointer: UnsafeMutablePointer<UInt8>?
    let length = call(&pointer)
    defer { fw_openssl_free(pointer) }
    guard length >= 0, let pointer else { return nil }
    return Array(UnsafeBufferPointer(start: pointer, count: Int(length)))
}

/// An allocated C string as a Swift String (freed), or nil.
func takeAllocatedString(_ pointer: UnsafeMutablePointer<CChar>?) -> String? {
    guard let pointer else { return nil }
    defer { fw_openssl_free(pointer) }
    return String(cString: pointer)
}

// MARK: - Files

/// The whole content of a file. Throws `TLSError.fileUnreadable` with the path and errno text.
func readFileBytes(atPath path: String) throws(TLSError) -> [UInt8] {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
        throw TLSError.fileUnreadable(reason: "\(path): \(String(cString: strerror(errno)))")
    }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count == 0 { return bytes }
        if count < 0 {
            if errno == EINTR { continue }
            throw TLSError.fileUnreadable(reason: "\(path): \(String(cString: strerror(errno)))")
        }
        bytes.append(contentsOf: chunk[0..<count])
    }
}
