// HopPolicyTestSupport.swift
//
// Shared fixtures of the policy tests: configurations with in-memory storages, hops and responses made from
// strings, a fixed clock, and decisions summarised as text so that a table row reads as what it expects.

import Foundation
import FWTransport
@testable import FWURLSession

/// Hops, responses and contexts for policy tests.
enum HopFixtures {
    /// A configuration whose cookie and credential storages and URL cache are new, in-memory ones.
    static func configuration(cookies: Bool = true, cache: Bool = true,
                              waits: Bool = false) -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = cookies
        if !cache { configuration.urlCache = nil }
        configuration.waitsForConnectivity = waits
        return configuration
    }

    /// The context policies get: `configuration`, the real clock (the cache judges freshness by it).
    static func context(_ configuration: URLSessionConfiguration, collects: Bool = false) -> HopContext {
        HopContext(configuration: configuration, sinkCollectsBody: collects, now: Date())
    }

    /// A request for `url` with `method` and `fields`.
    static func request(_ url: String, method: String = "GET", _ fields: [(String, String)] = []) -> URLRequest {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        for (name, value) in fields { request.addValue(value, forHTTPHeaderField: name) }
        return request
    }

    /// A hop of `request`, as the cookie policy writes it (its outgoing request).
    static func hop(_ request: URLRequest, _ configuration: URLSessionConfiguration) -> Hop {
        var hop = Hop(request: request)
        _ = CookieHopPolicy.prepare(&hop, configuration)
        return hop
    }

    /// A response for `url` with `status` and `fields` in order.
    static func response(_ url: String, status: Int = 200, _ fields: [(String, String)] = []) -> HTTPURLResponse {
        HTTPURLResponse(url: URL(string: url)!, statusCode: status, httpVersion: "HTTP/1.1",
                        orderedHeaderFields: fields.map { (name: $0.0, value: $0.1) })
    }
}

extension HopDecision {
    /// The decision as text: `continue`, `replace(redirect GET http://…)`, `serve(200)`, `ask(redirect http://…)`,
    /// `ask(challenge Basic realm failures=0 proposed=user)`, `ask(willCache 200)`, `fail(-1007)`, `cancelTask`,
    /// `waitForRoute(-1009)`.
    var summary: String {
        switch self {
        case .continue: "continue"
        case .replace(let next):
            "replace(\(next.reason) \(next.request.httpMethod ?? "GET") \(next.request.url?.absoluteString ?? ""))"
        case .serve(let stored): "serve(\((stored.response as? HTTPURLResponse)?.statusCode ?? 0))"
        case .ask(.redirect(let next, _)): "ask(redirect \(next.url?.absoluteString ?? ""))"
        case .ask(.challenge(let challenge)):
            "ask(challenge "
                + (challenge.space.authenticationMethod == NSURLAuthenticationMethodHTTPDigest ? "Digest " : "Basic ")
                + "\(challenge.space.realm ?? "-") failures=\(challenge.failures) "
                + "proposed=\(challenge.proposed?.user ?? "-"))"
        case .ask(.willCache(let proposal, _)):
            "ask(willCache \((proposal.response as? HTTPURLResponse)?.statusCode ?? 0))"
        case .fail(let error): "fail(\(error.code.rawValue))"
        case .cancelTask: "cancelTask"
        case .waitForRoute(let otherwise): "waitForRoute(\(otherwise.code.rawValue))"
        }
    }
}

extension Optional where Wrapped == (HopPolicy, HopDecision) {
    /// A walk's outcome as text: `policy: decision`, or `deliver` when every policy went on.
    var summary: String {
        map { "\($0.0): \($0.1.summary)" } ?? "deliver"
    }
}
