import Foundation
import FWTransport

// MARK: - URLError from transport failures

extension URLError {
    /// A `URLError` with the keys URLSession users read: the failing URL, a description and the
    /// underlying error (kept for diagnosis under `NSUnderlyingErrorKey`).
    init(_ code: URLError.Code, url: URL?, description: String, underlying: (any Error)? = nil) {
        var info: [String: Any] = [NSLocalizedDescriptionKey: description]
        if let underlying { info[NSUnderlyingErrorKey] = underlying }
        self.init(code, userInfo: info)
        self = addingFailingURL(url)
    }

    /// `NSErrorFailingURLStringKey`: Foundation's own constant for it is deprecated (in favour of the `URL` key),
    /// yet FoundationNetworking still fills it and callers read it. (An FWNetworking addition.)
    public static let failingURLStringKey = "NSErrorFailingURLStringKey"

    /// This error with FoundationNetworking's two keys of the URL that failed, `NSErrorFailingURLKey` (a `URL`)
    /// and `NSErrorFailingURLStringKey` (its absolute string): a key the error has already is kept, and
    /// `url` fills the ones it lacks. Every error a task completes with goes through here
    /// (`URLSessionTask.finish(error:)`), wherever it was made; the session manager's own errors too. (An
    /// FWNetworking addition.)
    public func addingFailingURL(_ url: URL?) -> URLError {
        guard let failing = userInfo[NSURLErrorFailingURLErrorKey] as? URL ?? url else { return self }
        guard userInfo[NSURLErrorFailingURLErrorKey] == nil || userInfo[Self.failingURLStringKey] == nil
        else { return self }
        var info = userInfo
        if info[NSURLErrorFailingURLErrorKey] == nil { info[NSURLErrorFailingURLErrorKey] = failing }
        if info[Self.failingURLStringKey] == nil {
            info[Self.failingURLStringKey] = failing.absoluteString
        }
        return URLError(code, userInfo: info)
    }

    /// Maps a transport failure to the code a URLSession user expects (ARCHITECTURE.md "Errors"); a refused
    /// server trust also carries the peer's trust (`NSURLErrorFailingURLPeerTrustErrorKey`), taken from the
    /// failure itself.
    init(_ error: TransportError, url: URL?) {
        let code: URLError.Code
        if error.isCancelled || error.isShutDown {
            code = .cancelled
        } else if error.isTimedOut {
            code = .timedOut
        } else if error.isCannotFindHost {
            code = .cannotFindHost
        } else if error.isCannotConnectToHost {
            code = .cannotConnectToHost
        } else if error.isNoRoute {
            code = .notConnectedToInternet
        } else if error.isConnectionLost {
            code = .networkConnectionLost
        } else if error.isBadResponse {
            let parseError = error.underlying as? HTTPParseError
            code = parseError?.isUnrecognizedResponse == true ? .cannotParseResponse : .badServerResponse
        } else if error.isSecureConnectionFailed || error.isServerTrustRejected {
            code = URLError.Code(secureConnectionFailure: error.underlying)
        } else if error.isCannotDecodeContent {
            code = .cannotDecodeContentData
        } else if error.isProxyFailure {
            code = URLError.Code(proxyFailure: error.underlying as? ProxyError)
        } else if error.isWebSocketMessageTooBig {
            // A message larger than `maximumMessageSize` (the task closed with 1009).
            code = .dataLengthExceedsMaximum
        } else if error.isWebSocketHandshakeFailure || error.isWebSocketProtocolError {
            code = .badServerResponse
        } else if error.isUnsupportedURL {
            code = .unsupportedURL
        } else if error.isBodyStreamFailed {
            // Apple documents no code for a body stream that fails while read; this is its code for a
            // body stream that ran out or could not be provided again, the closest match.
            code = .requestBodyStreamExhausted
        } else {
            // An invalid request (header injection, bad method): nothing was sent.
            code = .badURL
        }
        self.init(code, url: url, description: error.description, underlying: error.underlying ?? error)
        if let peerTrust = error.peerTrust {
            var info = userInfo
            info[NSURLErrorFailingURLPeerTrustErrorKey] = SecTrust(serverTrust: peerTrust)
            self.init(code, userInfo: info)
        }
    }
}

extension URLError.Code {
    /// A proxy that wants credentials it did not get (or refused them): `userAuthenticationRequired`; one
    /// that broke its protocol: `badServerResponse`; one that would not connect: `cannotConnectToHost`.
    init(proxyFailure: ProxyError?) {
        if proxyFailure?.isAuthenticationRequired == true {
            self = .userAuthenticationRequired
        } else if proxyFailure?.isMalformedReply == true {
            self = .badServerResponse
        } else {
            self = .cannotConnectToHost
        }
    }
}
