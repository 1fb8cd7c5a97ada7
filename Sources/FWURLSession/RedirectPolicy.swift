import Foundation
import FWTransport

// MARK: - RedirectPolicy

/// The request a URLSession follows a 3xx response with (RFC 9110 §15.4, as browsers and curl do):
///
/// - 301 and 302 turn POST into GET; 303 turns everything but HEAD into GET; a method that becomes
///   GET drops its body and the fields that described it.
/// - 307 and 308 keep the method and the body.
/// - `Location` is resolved against the current URL; a URL without a fragment inherits the current one.
/// - A hop to another origin (scheme, host or port) strips `Authorization`, `Cookie` and
///   `Proxy-Authorization`, so credentials never leak to a host they were not meant for.
enum RedirectPolicy {
    /// How many redirects a task follows before failing with `httpTooManyRedirects`.
    static let maxRedirects = 16

    /// The request to follow `response` with, or nil when it is not a redirect URLSession follows.
    static func nextRequest(after response: HTTPURLResponse, from request: URLRequest) -> URLRequest? {
        guard [301, 302, 303, 307, 308].contains(response.statusCode),
              let current = request.url,
              let location = response.value(forHTTPHeaderField: "Location"), !location.isEmpty,
              var target = URL(string: location, relativeTo: current)?.absoluteURL else { return nil }
        if target.fragment == nil, let fragment = current.fragment,
           let withFragment = URL(string: target.absoluteString + "#" + fragment) {
            target = withFragment
        }

        var next = request
        next.url = target
        next.fwRawRequest = nil
        let method = request.httpMethod ?? "GET"
        let becomesGET = switch response.statusCode {
        case 301, 302: method == "POST"
        case 303: method != "HEAD" && method != "GET"
        default: false
        }
        if becomesGET {
            next.httpMethod = "GET"
            next.httpBody = nil
            next.httpBodyStream = nil
            for field in ["Content-Type", "Content-Length", "Content-Encoding", "Transfer-Encoding"] {
                next.setValue(nil, forHTTPHeaderField: field)
            }
        }
        if !isSameOrigin(current, target) {
            for field in ["Authorization", "Cookie", "Proxy-Authorization"] {
                next.setValue(nil, forHTTPHeaderField: field)
            }
        }
        return next
    }

    /// Same scheme, host and (effective) port: the same connection key.
    static func isSameOrigin(_ a: URL, _ b: URL) -> Bool {
        guard let first = ConnectionKey(url: a) else { return false }
        return first == ConnectionKey(url: b)
    }
}
