// MARK: - TransferPlan

/// Where one URL's response body goes.
enum BodyDestination {
    /// Kept in memory for `--json`'s `body_base64`.
    case memory
    /// Streamed to stdout.
    case standardOutput
    /// `-o FILE`: streamed into FILE, opened in place.
    case file(String)
}

/// What the transfer of one URL does with its response.
struct TransferPlan {
    var destination: BodyDestination
    /// `-C`: the offset asked for with `Range` (> 0); nil for an ordinary transfer.
    var resumeOffset: Int64?
    /// `-i`: every response head of the chain goes before the body.
    var includeHeaders: Bool
    /// `-L`; without it a 3xx response is the result.
    var followRedirects: Bool
    /// `--max-redirs`; -1 for no limit of fwcurl's own.
    var maxRedirects: Int
    /// Draw a progress meter for the request body (`-T` on a terminal).
    var uploadMeter: Bool
    /// Draw a progress meter for the response body (`-o` on a terminal).
    var downloadMeter: Bool
    /// `-f`: a status of 400 or more writes no body (and fails the run).
    var failOnHTTPError = false
    /// `--max-filesize`: the most body bytes the transfer takes.
    var maxFileSize: Int64?
    /// `-u` and its scheme: the answers to the server's 401 challenges; nil without `-u`.
    var authentication: HTTPAuthPolicy?
    /// `-U` with `--proxy-digest` or `--proxy-anyauth`: the answers to an HTTP proxy's 407 challenges.
    var proxyAuthentication: HTTPAuthPolicy?
}
