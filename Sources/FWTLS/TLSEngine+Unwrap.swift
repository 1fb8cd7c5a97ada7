import CFWOpenSSL

// MARK: - TLSEngine: leaving TLS on a stream that goes on in plaintext

extension TLSEngine {
    /// The bytes received after the peer's close_notify that the engine has not decrypted: once both sides
    /// sent close_notify (`close()` and `receivedCloseNotify`), a stream that goes on in plaintext
    /// (`URLSessionStreamTask.stopSecureConnection()`) starts with them. Empty before the peer's
    /// close_notify: what is received then is still TLS.
    public func takeBytesAfterCloseNotify() -> [UInt8] {
        guard receivedCloseNotify else { return [] }
        let pending = Int(BIO_ctrl_pending(readBIO))
        guard pending > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: pending)
        let read = bytes.withUnsafeMutableBytes { BIO_read(readBIO, $0.baseAddress, Int32(pending)) }
        return read > 0 ? Array(bytes[0..<Int(read)]) : []
    }
}
