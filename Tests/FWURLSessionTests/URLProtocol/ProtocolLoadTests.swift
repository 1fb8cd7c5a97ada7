import Foundation
@testable import FWURLSession
import Testing
import TestSupport

// ProtocolLoad on its own: an instance is started once and stopped once, on the load's queue; a load
// stopped first never starts; what may be stored in the cache; withdrawn challenges.
@Suite struct ProtocolLoadTests {
    /// Counts its starts and stops.
    final class Counting: URLProtocol, @unchecked Sendable { // counts: LockedBox
        let counts = LockedBox((starts: 0, stops: 0, onDelegateQueue: false))

        override func startLoading() {
            counts.withLock { $0.starts += 1 }
        }

        override func stopLoading() {
            counts.withLock { counts in
                counts.stops += 1
                counts.onDelegateQueue = OperationQueue.current != nil
            }
        }
    }

    let request = URLRequest(url: URL(string: "http://example.test/")!)

    @Test(arguments: [1, 2, 5])
    func anInstanceIsStoppedOnceHoweverOftenItIsStopped(_ stops: Int) {
        let load = ProtocolLoad(request: request)
        let instance = Counting(request: request, cachedResponse: nil, client: nil)
        load.start(instance)
        for _ in 0..<stops { load.stop() }
        #expect(waitUntil(timeout: 5) { instance.counts.withLock { $0.stops } == 1 })
        #expect(instance.counts.withLock { ($0.starts, $0.stops, $0.onDelegateQueue) } == (1, 1, false))
        #expect(load.isStopped)
    }

    @Test func aLoadStoppedBeforeItStartsNeverStarts() {
        let load = ProtocolLoad(request: request)
        let instance = Counting(request: request, cachedResponse: nil, client: nil)
        load.stop()
        load.start(instance)
        let marker = DispatchSemaphore(value: 0)
        load.perform { marker.signal() }
        #expect(marker.wait(timeout: .now() + 5) == .success)
        #expect(instance.counts.withLock { ($0.starts, $0.stops) } == (0, 0))
    }

    struct StorageCase: Sendable {
        var policy: URLCache.StoragePolicy
        var cacheable: Bool
        var chunks: [String]
        var limit: Int
        var stored: String?
    }

    @Test(arguments: [
        StorageCase(policy: .allowed, cacheable: true, chunks: ["ab", "c"], limit: 10, stored: "abc"),
        StorageCase(policy: .allowedInMemoryOnly, cacheable: true, chunks: [], limit: 10, stored: ""),
        StorageCase(policy: .notAllowed, cacheable: true, chunks: ["ab"], limit: 10, stored: nil),
        StorageCase(policy: .allowed, cacheable: false, chunks: ["ab"], limit: 10, stored: nil),
        StorageCase(policy: .allowed, cacheable: true, chunks: ["abc", "def"], limit: 5, stored: nil),
    ])
    func whatMayBeStored(_ storage: StorageCase) {
        let load = ProtocolLoad(request: request)
        let response = URLResponse(url: request.url!, mimeType: nil, expectedContentLength: -1, textEncodingName: nil)
        load.received(response, storagePolicy: storage.policy, cacheLimit: storage.cacheable ? storage.limit : nil)
        for chunk in storage.chunks { load.loaded(Data(chunk.utf8)) }
        let proposal = load.storageProposal
        #expect(proposal.map { String(decoding: $0.data, as: UTF8.self) } == storage.stored)
        #expect(proposal.map { $0.storagePolicy == storage.policy } ?? true)
        #expect(load.outcome.bytes == Int64(storage.chunks.joined().utf8.count))
    }

    @Test func aWithdrawnChallengeOrAStoppedLoadTakesNoAnswer() {
        let load = ProtocolLoad(request: request)
        let space = URLProtectionSpace(host: "example.test", port: 80, protocol: "http", realm: "r",
                                       authenticationMethod: NSURLAuthenticationMethodHTTPBasic)
        let sender = URLSessionAuthenticationChallengeSender { _, _ in }
        let first = URLAuthenticationChallenge(protectionSpace: space, proposedCredential: nil,
                                               previousFailureCount: 0, failureResponse: nil, error: nil,
                                               sender: sender)
        let second = URLAuthenticationChallenge(authenticationChallenge: first, sender: sender)
        #expect(load.awaitsAnswer(to: first))
        load.withdraw(first)
        #expect(!load.awaitsAnswer(to: first))
        #expect(load.awaitsAnswer(to: second))
        load.stop()
        #expect(!load.awaitsAnswer(to: second))
    }
}
