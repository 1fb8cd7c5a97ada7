// URLProtocolClient.swift
//
// How a `URLProtocol` reports its load, source-compatible with FoundationNetworking's protocol. A session
// gives each protocol instance it starts a client of its own (`TaskProtocolClient`): every call may come
// from any thread and is delivered to the task in order, on the session's delegate queue.

import Foundation

/// The messages a `URLProtocol` sends about its load (FoundationNetworking's `URLProtocolClient`).
public protocol URLProtocolClient: NSObjectProtocol, Sendable {
    /// The load was redirected to `request`; `redirectResponse` is the response that redirected it. The
    /// task offers the redirect to its delegate (`willPerformHTTPRedirection` for an HTTP response); a
    /// followed redirect stops this protocol instance and loads `request` anew.
    func urlProtocol(_ protocol: URLProtocol, wasRedirectedTo request: URLRequest, redirectResponse: URLResponse)

    /// The protocol judged its `cachedResponse` valid: the task delivers it as its response and completes.
    func urlProtocol(_ protocol: URLProtocol, cachedResponseIsValid cachedResponse: CachedURLResponse)

    /// The response of the load; `policy` says whether (and where) the URL cache may store it once the
    /// load finishes.
    func urlProtocol(_ protocol: URLProtocol, didReceive response: URLResponse,
                     cacheStoragePolicy policy: URLCache.StoragePolicy)

    /// Body bytes loaded since the previous call (never the cumulated body).
    func urlProtocol(_ protocol: URLProtocol, didLoad data: Data)

    /// The load finished successfully.
    func urlProtocolDidFinishLoading(_ protocol: URLProtocol)

    /// The load failed with `error`; the task completes with that error as it is.
    func urlProtocol(_ protocol: URLProtocol, didFailWithError error: any Error)

    /// The load needs authentication: the task's delegate (else the session's) is asked, and its answer goes
    /// to the challenge's sender.
    func urlProtocol(_ protocol: URLProtocol, didReceive challenge: URLAuthenticationChallenge)

    /// The protocol withdrew `challenge`: a later answer to it is dropped.
    func urlProtocol(_ protocol: URLProtocol, didCancel challenge: URLAuthenticationChallenge)
}
