import CFWOpenSSL

// MARK: - Digest

/// A message digest computed by OpenSSL (EVP): what the layers above need for pins, HTTP Digest
/// authentication (MD5, SHA-256, SHA-512/256) and the WebSocket handshake (SHA-1). Not for passwords.
public struct Digest: Sendable, Hashable, CustomStringConvertible {
    /// The algorithm's name as RFC 7616 spells it ("MD5", "SHA-256", "SHA-512-256"; "SHA-1").
    public let name: String
    /// The digest's length in bytes.
    public let byteCount: Int
    private let algorithm: @Sendable () -> OpaquePointer?

    private init(name: String, byteCount: Int, algorithm: @escaping @Sendable () -> OpaquePointer?) {
        self.name = name
        self.byteCount = byteCount
        self.algorithm = algorithm
    }

    /// MD5 (RFC 1321): only where a protocol requires it (HTTP Digest's default algorithm).
    public static let md5 = Digest(name: "MD5", byteCount: 16) { EVP_md5() }
    /// SHA-1 (FIPS 180-4): only where a protocol requires it (RFC 6455's `Sec-WebSocket-Accept`).
    public static let sha1 = Digest(name: "SHA-1", byteCount: 20) { EVP_sha1() }
    /// SHA-256 (FIPS 180-4).
    public static let sha256 = Digest(name: "SHA-256", byteCount: 32) { EVP_sha256() }
    /// SHA-512/256 (FIPS 180-4), which RFC 7616 names "SHA-512-256".
    public static let sha512_256 = Digest(name: "SHA-512-256", byteCount: 32) { EVP_sha512_256() }

    /// The digest of `bytes`.
    public func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: byteCount)
        let hashed: Int32? = bytes.withContiguousStorageIfAvailable { buffer in
            EVP_Digest(buffer.baseAddress, buffer.count, &out, nil, algorithm(), nil)
        }
        if hashed == nil {
            let copy = Array(bytes)
            _ = copy.withUnsafeBytes { EVP_Digest($0.baseAddress, $0.count, &out, nil, algorithm(), nil) }
        }
        return out
    }

    /// The digest of `text`'s UTF-8 bytes.
    public func hash(_ text: String) -> [UInt8] {
        hash(Array(text.utf8))
    }

    /// The digest of `bytes` as lowercase hexadecimal (how HTTP Digest writes it).
    public func hexHash(_ bytes: some Collection<UInt8>) -> String {
        Hex.lower(hash(bytes))
    }

    /// The digest of `text`'s UTF-8 bytes as lowercase hexadecimal.
    public func hexHash(_ text: String) -> String {
        Hex.lower(hash(text))
    }

    /// The algorithm's name.
    public var description: String { name }

    /// Two digests are equal when they are the same algorithm.
    public static func == (lhs: Digest, rhs: Digest) -> Bool { lhs.name == rhs.name }

    /// Hashes the algorithm's name.
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}
