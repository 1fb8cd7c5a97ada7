import CFWOpenSSL

// MARK: - SystemTrustStore

/// Where the system's trust anchors are, found at run time rather than fixed when OpenSSL was built.
///
/// A binary built on one distribution (a static build above all) meets another distribution's layout
/// when it runs, so the search does not trust OpenSSL's compiled-in paths alone. It asks, in order, and
/// takes the first place that exists:
///
/// 1. the environment: `SSL_CERT_FILE` (a PEM bundle) and `SSL_CERT_DIR` (a hashed directory), both
///    used when both are set and exist;
/// 2. the CA bundles of the known distributions (``knownBundles``: Debian/Ubuntu, RHEL/Fedora/CentOS,
///    Alpine, openSUSE, Arch);
/// 3. their hashed directories (``knownDirectories``);
/// 4. OpenSSL's compiled default bundle, then its default directory.
///
/// A variable that is set to a path that does not exist is noted and passed over. ``searched`` keeps
/// every path looked at, so an empty result says where it looked (the TLS error quotes it). The search
/// is a pure function of the environment and a path-kind function, so tests give it both.
public struct SystemTrustStore: Sendable, CustomStringConvertible {
    /// What a path names.
    public enum PathKind: Sendable, Hashable {
        /// A regular file (a PEM bundle).
        case file
        /// A directory (certificates named by subject hash).
        case directory
    }

    /// One place anchors are loaded from.
    public struct Location: Sendable, Hashable, CustomStringConvertible {
        /// A PEM bundle or a hashed directory.
        public let kind: PathKind
        /// The path as found.
        public let path: String
        /// Why this path was asked: the variable that named it, the distributions that use it, or
        /// "OpenSSL default".
        public let origin: String

        /// Creates a location.
        public init(kind: PathKind, path: String, origin: String) {
            self.kind = kind
            self.path = path
            self.origin = origin
        }

        /// The path, its kind and origin in one line.
        public var description: String {
            "\(path) (\(origin) \(kind == .file ? "bundle" : "directory"))"
        }
    }

    /// The bundle locations of the known distributions, in the order they are asked.
    public static let knownBundles: [Location] = [
        Location(kind: .file, path: "/etc/ssl/certs/ca-certificates.crt", origin: "Debian/Ubuntu/Arch"),
        Location(kind: .file, path: "/etc/pki/tls/certs/ca-bundle.crt", origin: "RHEL/Fedora/CentOS"),
        Location(kind: .file, path: "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem", origin: "RHEL/Fedora/CentOS"),
        Location(kind: .file, path: "/etc/ssl/cert.pem", origin: "Alpine"),
        Location(kind: .file, path: "/etc/ssl/ca-bundle.pem", origin: "openSUSE"),
        Location(kind: .file, path: "/var/lib/ca-certificates/ca-bundle.pem", origin: "openSUSE"),
        Location(kind: .file, path: "/etc/ca-certificates/extracted/tls-ca-bundle.pem", origin: "Arch"),
    ]

    /// The hashed directories of the known distributions, asked after every bundle.
    public static let knownDirectories: [Location] = [
        Location(kind: .directory, path: "/etc/ssl/certs", origin: "Debian/Ubuntu/Alpine/Arch"),
        Location(kind: .directory, path: "/etc/pki/tls/certs", origin: "RHEL/Fedora/CentOS"),
        Location(kind: .directory, path: "/var/lib/ca-certificates/openssl", origin: "openSUSE"),
    ]

    /// OpenSSL's compiled defaults (X509_get_default_cert_file and _dir), asked last.
    public static var openSSLDefaults: [Location] {
        [
            Location(kind: .file, path: String(cString: fw_x509_default_cert_file()), origin: "OpenSSL default"),
            Location(kind: .directory, path: String(cString: fw_x509_default_cert_dir()), origin: "OpenSSL default"),
        ]
    }

    /// Where the anchors are: empty when nothing was found, two entries only for `SSL_CERT_FILE` and
    /// `SSL_CERT_DIR` together.
    public let locations: [Location]

    /// Every path looked at, in order, each with what was there ("missing", "not a directory", "used").
    public let searched: [String]

    /// Searches with the given environment and a function that says what a path names (nil: nothing).
    public init(environment: [String: String], pathKind: (String) -> PathKind?) {
        var searched: [String] = []
        func found(_ candidate: Location) -> Bool {
            let actual = pathKind(candidate.path)
            let wanted = candidate.kind == .file ? "a file" : "a directory"
            let note = actual == candidate.kind ? "used" : actual == nil ? "missing" : "not \(wanted)"
            searched.append("\(candidate.path) (\(candidate.origin): \(note))")
            return actual == candidate.kind
        }
        var fromEnvironment: [Location] = []
        for (name, kind) in [("SSL_CERT_FILE", PathKind.file), ("SSL_CERT_DIR", .directory)] {
            guard let value = environment[name], !value.isEmpty else { continue }
            let candidate = Location(kind: kind, path: value, origin: name)
            if found(candidate) { fromEnvironment.append(candidate) }
        }
        if !fromEnvironment.isEmpty {
            self.locations = fromEnvironment
            self.searched = searched
            return
        }
        let rest = Self.knownBundles + Self.knownDirectories + Self.openSSLDefaults
        self.locations = rest.first(where: found).map { [$0] } ?? []
        self.searched = searched
    }

    /// True when no location was found.
    public var isEmpty: Bool { locations.isEmpty }

    /// The locations used, or where the search looked when it found none.
    public var description: String {
        if locations.isEmpty {
            return "no system trust store found; looked at \(searched.joined(separator: ", "))"
        }
        return locations.map(\.description).joined(separator: " + ")
    }

    // MARK: The process's store

    /// The search with this process's environment and file system, made once, the first time the
    /// system's anchors are needed (or this is read).
    public static let current = SystemTrustStore(
        environment: TrustStoreEnvironment.values(of: ["SSL_CERT_FILE", "SSL_CERT_DIR"]),
        pathKind: SystemTrustStore.pathKind(of:)
    )

    /// What `path` names in the file system after following links (stat(2)); nil for nothing or
    /// anything but a regular file or directory.
    public static func pathKind(of path: String) -> PathKind? {
        switch fw_path_kind(path) {
        case 1: .file
        case 2: .directory
        default: nil
        }
    }

    /// The anchors of `current`, loaded once; nil when nothing was found or loading failed.
    static let shared: X509StoreHandle? = current.load()

    /// Why the system's anchors are missing, for the TLS error.
    static var missingReason: String {
        if current.isEmpty { return current.description }
        return "the system trust store \(current) held no usable certificate"
    }

    /// A store with the anchors of `locations`; nil when there are none or loading failed.
    func load() -> X509StoreHandle? {
        guard !locations.isEmpty else { return nil }
        let file = locations.first(where: { $0.kind == .file })?.path
        let directory = locations.first(where: { $0.kind == .directory })?.path
        let store = file.withOptionalCString { file in
            directory.withOptionalCString { directory in fw_x509_store_new_locations(file, directory) }
        }
        return store.map(X509StoreHandle.init(taking:))
    }
}

// MARK: - TrustStoreEnvironment

/// The process's environment as the search reads it (getenv(3), one name at a time).
enum TrustStoreEnvironment {
    static func values(of names: [String]) -> [String: String] {
        var values: [String: String] = [:]
        for name in names {
            if let value = fw_getenv(name) { values[name] = String(cString: value) }
        }
        return values
    }
}

extension Optional where Wrapped == String {
    fileprivate func withOptionalCString<Result>(_ body: (UnsafePointer<CChar>?) -> Result) -> Result {
        switch self {
        case .some(let string): string.withCString { body($0) }
        case .none: body(nil)
        }
    }
}
