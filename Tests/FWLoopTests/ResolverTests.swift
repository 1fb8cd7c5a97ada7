// Resolver: numeric literals inline, getaddrinfo on workers, error classification, ordering.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing

@testable import FWLoop
import TestSupport

/// Resolves and waits (bounded) for the completion.
private func resolve(_ host: String, port: Int = 80) throws -> Result<[SocketAddress], ResolverError> {
    let outcome = LockedBox<Result<[SocketAddress], ResolverError>?>(nil)
    Resolver.resolve(host: host, port: port) { result in
        outcome.withLock { $0 = result }
    }
    guard waitUntil(timeout: .seconds(10), { outcome.withLock { $0 != nil } }) else {
        throw TimedOut(what: "resolving \(host)")
    }
    return outcome.withLock { $0! }
}

@Suite struct ResolverTests {
    @Test(arguments: [
        ("127.0.0.1", "127.0.0.1:8080"),
        ("::1", "[::1]:8080"),
        ("[::1]", "[::1]:8080"),
        ("[2001:db8::1]", "[2001:db8::1]:8080"),
    ])
    func numericLiteralsResolveInlineOnTheCallingThread(host: String, expected: String) {
        let caller = pthread_self()
        let outcome = LockedBox<(String, Bool)?>(nil)
        Resolver.resolve(host: host, port: 8080) { result in
            let text = (try? result.get())?.map(\.description).joined(separator: ",") ?? "failure"
            outcome.withLock { $0 = (text, pthread_self() == caller) }
        }
        let (text, sameThread) = outcome.withLock { $0 } ?? ("not called inline", false)
        #expect(text == expected)
        #expect(sameThread)
    }

    @Test func localhostResolvesThroughGetaddrinfoOnAWorker() throws {
        let caller = pthread_self()
        let worker = LockedBox<pthread_t?>(nil)
        let outcome = LockedBox<Result<[SocketAddress], ResolverError>?>(nil)
        Resolver.resolve(host: "localhost", port: 8443) { result in
            worker.withLock { $0 = pthread_self() }
            outcome.withLock { $0 = result }
        }
        #expect(waitUntil(timeout: .seconds(10)) { outcome.withLock { $0 != nil } })
        let addresses = try #require(outcome.withLock { $0 }).get()
        #expect(!addresses.isEmpty)
        #expect(addresses.allSatisfy { $0.port == 8443 })
        #expect(addresses.contains { $0.host == "127.0.0.1" || $0.host == "::1" })
        #expect(Set(addresses).count == addresses.count)
        #expect(worker.withLock { $0 } != caller)
    }

    @Test func unknownHostIsHostNotFound() throws {
        let result = try resolve("no-such-host.invalid")
        let error = #expect(throws: ResolverError.self) {
            try result.get()
        }
        #expect(error?.isHostNotFound == true)
        #expect(error?.isTemporaryFailure == false)
        #expect(error?.host == "no-such-host.invalid")
        #expect(error?.description.contains("no-such-host.invalid") == true)
    }

    @Test(arguments: [-1, 65536])
    func invalidPortFailsInline(port: Int) {
        let outcome = LockedBox<ResolverError?>(nil)
        Resolver.resolve(host: "127.0.0.1", port: port) { result in
            if case .failure(let error) = result {
                outcome.withLock { $0 = error }
            }
        }
        let error = outcome.withLock { $0 }
        #expect(error?.gaiCode == EAI_SERVICE)
        #expect(error?.isHostNotFound == false)
    }

    @Test func concurrentLookupsAllComplete() throws {
        let done = LockedBox(0)
        for _ in 0..<8 {
            Resolver.resolve(host: "localhost", port: 1) { result in
                if case .success = result {
                    done.withLock { $0 += 1 }
                }
            }
        }
        #expect(waitUntil(timeout: .seconds(10)) { done.withLock { $0 == 8 } })
    }

    @Test(arguments: [
        (EAI_NONAME, true, false),
        (-5, true, false),
        (-9, true, false),
        (EAI_AGAIN, false, true),
        (EAI_FAIL, false, false),
        (EAI_SYSTEM, false, false),
    ])
    func classifiesGetaddrinfoCodes(code: Int32, hostNotFound: Bool, temporary: Bool) {
        let error = ResolverError(gaiCode: code, systemErrno: ENOMEM, host: "h")
        #expect(error.isHostNotFound == hostNotFound)
        #expect(error.isTemporaryFailure == temporary)
        #expect(error.systemErrno == (code == EAI_SYSTEM ? ENOMEM : 0))
    }

    @Test func staticMembersMatchTheirCodes() {
        #expect(ResolverError.hostNotFound("h") == ResolverError(gaiCode: EAI_NONAME, host: "h"))
        #expect(ResolverError.hostNotFound("h").isHostNotFound)
        #expect(ResolverError.temporaryFailure("h") == ResolverError(gaiCode: EAI_AGAIN, host: "h"))
        #expect(ResolverError.temporaryFailure("h").isTemporaryFailure)
    }

    @Test func ordersIPv6FirstAndDropsDuplicates() {
        let addresses = ["10.0.0.1", "::1", "10.0.0.2", "10.0.0.1", "2001:db8::1", "::1"].map {
            SocketAddress(numericHost: $0, port: 80)!
        }
        let ordered = Resolver.orderedUnique(addresses).map(\.host)
        #expect(ordered == ["::1", "2001:db8::1", "10.0.0.1", "10.0.0.2"])
    }
}
