import CFWOpenSSL

// MARK: - TLSLibrary

/// Facts about the OpenSSL library FWTLS runs on.
public enum TLSLibrary {
    /// The linked OpenSSL's version text, e.g. "OpenSSL 3.0.19 27 Jan 2026".
    public static var versionDescription: String {
        guard let text = fw_openssl_version_text() else { return "unknown" }
        return String(cString: text)
    }
}
