// URLRequest+Conformances.swift
//
// Equality, hashing and descriptions of `URLRequest`. Equality deliberately matches FoundationNetworking
// (and Darwin): two requests are equal when URL, main document URL, method, cache policy, body stream
// (by identity), the network-access flags and cookie handling agree; header fields, body data, timeout,
// service type and pipelining do not take part.

import Foundation

// MARK: Equality and hashing

extension URLRequest: Hashable {
    /// Whether two requests are equal in the FoundationNetworking sense (header fields, body data,
    /// timeout, service type and pipelining are not compared).
    public static func == (lhs: URLRequest, rhs: URLRequest) -> Bool {
        lhs.url == rhs.url
            && lhs.mainDocumentURL == rhs.mainDocumentURL
            && lhs.httpMethod == rhs.httpMethod
            && lhs.cachePolicy == rhs.cachePolicy
            && lhs.httpBodyStream === rhs.httpBodyStream
            && lhs.allowsCellularAccess == rhs.allowsCellularAccess
            && lhs.allowsExpensiveNetworkAccess == rhs.allowsExpensiveNetworkAccess
            && lhs.allowsConstrainedNetworkAccess == rhs.allowsConstrainedNetworkAccess
            && lhs.httpShouldHandleCookies == rhs.httpShouldHandleCookies
    }

    /// Hashes the properties `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(url)
        hasher.combine(mainDocumentURL)
        hasher.combine(httpMethod)
        hasher.combine(cachePolicy)
        hasher.combine(httpBodyStream.map(ObjectIdentifier.init))
        hasher.combine(allowsCellularAccess)
        hasher.combine(allowsExpensiveNetworkAccess)
        hasher.combine(allowsConstrainedNetworkAccess)
        hasher.combine(httpShouldHandleCookies)
    }
}

// MARK: Descriptions

extension URLRequest: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The request's URL, or `"url: nil"` when it has none.
    public var description: String {
        url?.description ?? "url: nil"
    }

    /// The same text as `description`.
    public var debugDescription: String {
        description
    }

    /// A mirror showing the public properties (rather than the internal storage).
    public var customMirror: Mirror {
        let children: [(label: String?, value: Any)] = [
            ("url", url as Any),
            ("cachePolicy", cachePolicy.rawValue),
            ("timeoutInterval", timeoutInterval),
            ("mainDocumentURL", mainDocumentURL as Any),
            ("networkServiceType", networkServiceType),
            ("allowsCellularAccess", allowsCellularAccess),
            ("allowsExpensiveNetworkAccess", allowsExpensiveNetworkAccess),
            ("allowsConstrainedNetworkAccess", allowsConstrainedNetworkAccess),
            ("httpMethod", httpMethod as Any),
            ("allHTTPHeaderFields", allHTTPHeaderFields as Any),
            ("httpBody", httpBody as Any),
            ("httpBodyStream", httpBodyStream as Any),
            ("httpShouldHandleCookies", httpShouldHandleCookies),
            ("httpShouldUsePipelining", httpShouldUsePipelining),
        ]
        return Mirror(self, children: children, displayStyle: .struct)
    }
}
