// MARK: - ContentCodings
//
// Which content codings a response body may come in and be decoded: the fact the default Accept-Encoding and
// fwcurl's --compressed are built from. gzip and deflate always (zlib is linked); br when libbrotlidec could
// be loaded at run time (`BrotliLibrary`).

/// The content codings FWNetworking decodes in this process (an FWNetworking addition).
public struct ContentCodings: Sendable {
    /// Whether `br` bodies are decoded: libbrotlidec (`libbrotlidec.so.1`, Debian's libbrotli1) was found.
    public static let decodesBrotli = BrotliLibrary.shared != nil

    /// The Accept-Encoding value a session sends when a request names none: `gzip, deflate`, plus `br` when
    /// `decodesBrotli`.
    public static let acceptEncoding = acceptEncoding(brotli: decodesBrotli)

    /// The Accept-Encoding value for a process that does (or does not) decode brotli.
    public static func acceptEncoding(brotli: Bool) -> String {
        brotli ? "gzip, deflate, br" : "gzip, deflate"
    }

    private init() {}
}
