import Foundation
@testable import FWURLSession
import Testing

// URLProtocol as a class: what the base class does where FoundationNetworking's traps, request properties,
// registration, and which class a session chooses.
@Suite struct URLProtocolTests {
    let request = URLRequest(url: URL(string: "http://example.test/a#f")!)

    @Test func theBaseClassTakesNothingAndKeepsRequestsAsTheyAre() {
        #expect(!URLProtocol.canInit(with: request))
        #expect(URLProtocol.canonicalRequest(for: request) == request)
        let instance = URLProtocol(request: request, cachedResponse: nil, client: nil)
        #expect(instance.request == request)
        #expect(instance.cachedResponse == nil)
        #expect(instance.client == nil)
        #expect(instance.task == nil)
        instance.startLoading()
        instance.stopLoading()
    }

    @Test(arguments: [
        ("http://example.test/a", "GET", "http://example.test/a#other", "GET", true),
        ("http://example.test/a", "GET", "http://example.test/b", "GET", false),
        ("http://example.test/a", "POST", "http://example.test/a", "POST", false),
    ])
    func cacheEquivalenceComparesTheCacheKeys(_ first: String, _ firstMethod: String, _ second: String,
                                              _ secondMethod: String, _ equivalent: Bool) {
        var a = URLRequest(url: URL(string: first)!)
        a.httpMethod = firstMethod
        var b = URLRequest(url: URL(string: second)!)
        b.httpMethod = secondMethod
        #expect(URLProtocol.requestIsCacheEquivalent(a, to: b) == equivalent)
    }

    @Test func propertiesTravelWithTheRequestAndItsBridges() {
        let mutable = NSMutableURLRequest(url: URL(string: "http://example.test/")!)
        URLProtocol.setProperty(["a": 1], forKey: "k", in: mutable)
        URLProtocol.setProperty("gone", forKey: "x", in: mutable)
        URLProtocol.removeProperty(forKey: "x", in: mutable)
        var request = mutable as URLRequest
        #expect(URLProtocol.property(forKey: "k", in: request) as? [String: Int] == ["a": 1])
        #expect(URLProtocol.property(forKey: "x", in: request) == nil)
        request.url = URL(string: "http://example.test/changed")
        let copy = request
        #expect(URLProtocol.property(forKey: "k", in: copy) as? [String: Int] == ["a": 1])
        #expect(URLProtocol.property(forKey: "k", in: (request as NSURLRequest) as URLRequest) != nil)
        // Properties are not part of equality.
        #expect(URLRequest(url: URL(string: "http://example.test/changed")!) == request)
    }

    @Test func registrationPutsTheLatestFirstAndRefusesOtherClasses() {
        #expect(!URLProtocol.registerClass(NSObject.self))
        #expect(URLProtocol.registerClass(FirstRegistered.self))
        #expect(URLProtocol.registerClass(SecondRegistered.self))
        #expect(URLProtocol.registerClass(FirstRegistered.self))
        defer {
            URLProtocol.unregisterClass(FirstRegistered.self)
            URLProtocol.unregisterClass(SecondRegistered.self)
        }
        let ours = URLProtocol.registeredClasses.filter { $0 == FirstRegistered.self || $0 == SecondRegistered.self }
        #expect(ours.map(ObjectIdentifier.init) == [ObjectIdentifier(FirstRegistered.self),
                                                      ObjectIdentifier(SecondRegistered.self)])
        URLProtocol.unregisterClass(FirstRegistered.self)
        #expect(!URLProtocol.registeredClasses.contains { $0 == FirstRegistered.self })
    }

    @Test func onlyTheSharedSessionConsultsTheRegisteredClasses() {
        let host = StubHost { $0.respond() }
        defer { host.remove() }
        URLProtocol.registerClass(StubURLProtocol.self)
        defer { URLProtocol.unregisterClass(StubURLProtocol.self) }
        let shared = URLSession.shared.dataTask(with: host.url())
        let own = URLSession(configuration: .ephemeral)
        defer { own.invalidateAndCancel() }
        #expect(URLSession.shared.protocolClass(for: shared) == StubURLProtocol.self)
        #expect(own.protocolClass(for: own.dataTask(with: host.url())) == nil)
    }

    @Test func theConfigurationsClassesAreAskedInOrderSkippingOtherClasses() {
        let host = StubHost { $0.respond() }
        defer { host.remove() }
        let configuration = URLSessionConfiguration.ephemeral
        #expect(configuration.protocolClasses?.isEmpty == true)
        configuration.protocolClasses = [NSObject.self, CanonicalisingProtocol.self, StubURLProtocol.self]
        let session = URLSession(configuration: configuration)
        defer { session.invalidateAndCancel() }
        #expect(session.protocolClass(for: session.dataTask(with: host.url())) == CanonicalisingProtocol.self)
        #expect(session.protocolClass(for: session.dataTask(with: URL(string: "http://other.test/")!)) == nil)
    }

    @Test func anInstanceMadeForATaskLoadsItsCurrentRequestWithItsBody() {
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        var request = URLRequest(url: URL(string: "http://example.test/upload")!)
        request.httpMethod = "PUT"
        let task = session.uploadTask(with: request, from: Data("body".utf8))
        let instance = URLProtocol(task: task, cachedResponse: nil, client: nil)
        #expect(instance.task === task)
        #expect(instance.request.httpMethod == "PUT")
        #expect(instance.request.httpBody == Data("body".utf8))
        #expect(URLProtocol.canInit(with: task) == false)
    }
}

/// Classes to register (they take nothing).
final class FirstRegistered: URLProtocol, @unchecked Sendable {} // no state
final class SecondRegistered: URLProtocol, @unchecked Sendable {} // no state
