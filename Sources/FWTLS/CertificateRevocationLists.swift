import CFWOpenSSL

// MARK: - CertificateRevocationLists

/// Certificate revocation lists (X.509 CRLs) offered to a chain verification: curl's `--crlfile`.
///
/// Loaded once from PEM (any number of `X509 CRL` blocks) or DER; a CRL is used for a certificate when
/// its issuer and signature match that certificate's issuer, and while the evaluation time lies between
/// its lastUpdate and nextUpdate (OpenSSL's rules, `X509_V_FLAG_CRL_CHECK`).
public struct CertificateRevocationLists: Sendable {
    let handle: CRLStackHandle

    /// The CRLs in `bytes` (PEM or DER). Throws `TLSError.decodingFailed` when there is none.
    public init(bytes: [UInt8]) throws(TLSError) {
        let stack = bytes.withUnsafeBytes { fw_crl_stack_read($0.baseAddress, Int32($0.count)) }
        guard let stack else {
            throw TLSError.decodingFailed(reason: "no certificate revocation list (PEM or DER) in the input")
        }
        handle = CRLStackHandle(taking: stack)
    }

    /// The CRLs of the file at `path`. Throws `TLSError.fileUnreadable` or `.decodingFailed`.
    public init(file path: String) throws(TLSError) {
        let bytes = try readFileBytes(atPath: path)
        do throws(TLSError) {
            try self.init(bytes: bytes)
        } catch {
            throw TLSError.decodingFailed(reason: "\(path): \(error.reason)")
        }
    }

    /// Every CRL of `lists` in one value (the CRLs are shared, not copied); nil when `lists` is empty.
    public init?(combining lists: [CertificateRevocationLists]) {
        let pointers: [OpaquePointer?] = lists.map { $0.handle.pointer }
        let merged = withExtendedLifetime(lists) {
            pointers.withUnsafeBufferPointer { fw_crl_stack_merge($0.baseAddress, Int32($0.count)) }
        }
        guard let merged else { return nil }
        handle = CRLStackHandle(taking: merged)
    }

    /// The earliest nextUpdate of the CRLs, in seconds since 1970: when the first of them goes stale. nil
    /// when one has no nextUpdate (it never says when to look again).
    public var earliestNextUpdate: Int64? {
        let dates = updateTimes
        guard dates.count == count, dates.allSatisfy({ $0.nextUpdate != nil }) else { return nil }
        return dates.compactMap(\.nextUpdate).min()
    }

    /// How many CRLs there are.
    public var count: Int { Int(fw_crl_stack_count(handle.pointer)) }

    /// The lastUpdate and nextUpdate (nil when absent) of each CRL, in seconds since 1970.
    public var updateTimes: [(lastUpdate: Int64, nextUpdate: Int64?)] {
        (0..<Int32(count)).compactMap { index in
            var last: Int64 = 0
            var next: Int64 = 0
            guard fw_crl_dates(handle.pointer, index, &last, &next) == 0 else { return nil }
            return (last, next == 0 ? nil : next)
        }
    }

    /// The issuer of each CRL, as one-line text.
    public var issuers: [String] {
        (0..<Int32(count)).map { takeAllocatedString(fw_crl_issuer_text(handle.pointer, $0)) ?? "" }
    }
}

/// One STACK_OF(X509_CRL) with its CRLs, owned.
///
/// `@unchecked Sendable`: never mutated after reading; verification only reads the CRLs (OpenSSL keeps
/// its derived data, such as the sorted revoked list, under the CRL's own lock).
final class CRLStackHandle: @unchecked Sendable { // never mutated after creation (see above)
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        fw_crl_stack_free(pointer)
    }
}
