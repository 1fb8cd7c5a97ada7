import CFWOpenSSL

// MARK: - TrustRoots

/// The trust anchors a chain is verified against: the system store, custom certificates, or both.
///
/// The system store is loaded once per process, the first time a chain is verified against it, and
/// shared by every configuration and connection. Custom anchors are put in their own store when the
/// value is created, so building a `TrustRoots` is the only per-configuration cost. A custom anchor
/// may be any certificate of a chain (a root, an intermediate, or the leaf itself). Each store
/// remembers the last chains it verified, so a server's chain seen again (the next connection, resumed
/// or not) is not verified again while the time stays inside the validity of its certificates.
public struct TrustRoots: Sendable, CustomStringConvertible {
    /// The custom anchors (empty for `.system`).
    public let certificates: [Certificate]

    /// True when the system's anchors are trusted too.
    public let includesSystemRoots: Bool

    private let customStore: X509StoreHandle?

    private init(certificates: [Certificate], includesSystemRoots: Bool, customStore: X509StoreHandle?) {
        self.certificates = certificates
        self.includesSystemRoots = includesSystemRoots
        self.customStore = customStore
    }

    /// The system's trust store, found at run time (`SSL_CERT_FILE`/`SSL_CERT_DIR`, the distributions'
    /// locations, then OpenSSL's default; see ``SystemTrustStore``) and loaded once per process.
    public static let system = TrustRoots(certificates: [], includesSystemRoots: true, customStore: nil)

    /// Exactly these anchors ("anchor certificates only"), or these plus the system's.
    public static func certificates(_ anchors: [Certificate], includingSystemRoots: Bool = false) -> TrustRoots {
        let store = fw_x509_store_new().map(X509StoreHandle.init(taking:))
        if let store {
            for anchor in anchors {
                X509_STORE_add_cert(store.pointer, anchor.handle.pointer)
            }
            ERR_clear_error()
        }
        return TrustRoots(certificates: anchors, includesSystemRoots: includingSystemRoots, customStore: store)
    }

    /// The certificates of a PEM file (a CA bundle, curl's `--cacert`), optionally plus the system's.
    public static func pemFile(_ path: String, includingSystemRoots: Bool = false) throws(TLSError) -> TrustRoots {
        certificates(try Certificate.certificates(pemFile: path), includingSystemRoots: includingSystemRoots)
    }

    /// Which anchors, in one line.
    public var description: String {
        switch (certificates.isEmpty, includesSystemRoots) {
        case (true, true): "TrustRoots.system"
        case (_, false): "TrustRoots(\(certificates.count) anchors only)"
        case (false, true): "TrustRoots(\(certificates.count) anchors + system)"
        }
    }

    // MARK: Verification stores

    /// The stores to try in order, each with whether any of its certificates may end a chain.
    var verificationStores: [(store: X509StoreHandle, partialChain: Bool)] {
        var stores: [(store: X509StoreHandle, partialChain: Bool)] = []
        if let customStore, !certificates.isEmpty {
            stores.append((customStore, true))
        }
        if includesSystemRoots, let system = SystemTrustStore.shared {
            stores.append((system, false))
        }
        return stores
    }

    /// Why there is no store to verify with, for the error: where the system store was looked for.
    var missingAnchorsReason: String {
        includesSystemRoots ? "no trust anchors: \(SystemTrustStore.missingReason)" : "no trust anchors (\(self))"
    }
}
