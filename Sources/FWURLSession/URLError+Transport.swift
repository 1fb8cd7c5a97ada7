import Foundation
import FWTransport

// MARK: - URLError from transport failures

extension URLError {
    /// A `URLError` with the keys URLSession users read: the failing URL, a description and the
    /// underlying error (kept for diagnosis under `NSUnderlyingErrorKey`).
    init(_ code: URLError.Code, url: URL?, description: String, underlying: (any Error)? = nil) {
        var info: [String: Any] = [NSLocalizedDescriptionKey: description]
        if let url { info[NSURLErrorFailingURLErrorKey] = url }
        if let underlying { info[NSUnderlyingErrorKey] = underlying }
        self.init(code, userInfo: info)
    }

    /// Maps a transport failure to the code a URLSession user expects (ARCHITECTURE.md "Errors").
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
