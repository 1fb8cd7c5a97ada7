import Foundation
import FWNetworking
import Testing

// The compatibility promise (ARCHITECTURE.md): with exactly `import Foundation` + `import FWNetworking`
// the networking names resolve, unqualified, to FWNetworking's types and not to Foundation's
// unavailable placeholders. This file compiling is most of the test.
@Suite struct ImportPairTests {
    @Test func networkingNamesResolveToFWNetworking() {
        let configuration: URLSessionConfiguration = .ephemeral
        configuration.httpMaximumConnectionsPerHost = 3
        let session: URLSession = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        var request: URLRequest = URLRequest(url: URL(string: "http://example.invalid/path")!)
        request.httpMethod = "PUT"
        request.setValue("1", forHTTPHeaderField: "X-One")
        let task: URLSessionDataTask = session.dataTask(with: request)
        let response: HTTPURLResponse? = HTTPURLResponse(url: URL(string: "http://example.invalid/")!,
                                                        statusCode: 204, httpVersion: "HTTP/1.1",
                                                        headerFields: ["A": "b"])
        let error: URLError = URLError(.timedOut)

        #expect(session.configuration.httpMaximumConnectionsPerHost == 3)
        #expect(task.originalRequest?.httpMethod == "PUT")
        #expect(task.state == .suspended)
        #expect(response?.statusCode == 204)
        #expect(error.code.rawValue == NSURLErrorTimedOut)
    }

    /// A lower layer's type in FWURLSession's API (FWWire's `HTTPLimits`, re-exported through FWTransport
    /// and FWURLSession) needs no import of its own.
    @Test func lowerLayerTypesOfTheAPIComeWithTheImport() {
        var limits: HTTPLimits = HTTPLimits()
        limits.maxHeaderCount = 10
        let configuration: URLSessionConfiguration = .ephemeral
        configuration.httpResponseLimits = limits
        #expect(configuration.httpResponseLimits.maxHeaderCount == 10)
    }

    /// Counts the notifications a storage posts (synchronously, on the changing thread).
    final class Heard: @unchecked Sendable { // `names` only under `lock`
        private let lock = NSLock()
        private var names: [NSNotification.Name] = []

        func add(_ name: NSNotification.Name) {
            lock.lock()
            defer { lock.unlock() }
            names.append(name)
        }

        var all: [NSNotification.Name] {
            lock.lock()
            defer { lock.unlock() }
            return names
        }
    }

    @Test func cookieAndCredentialNamesResolveToFWNetworking() {
        let configuration: URLSessionConfiguration = .ephemeral
        let storage: HTTPCookieStorage? = configuration.httpCookieStorage
        let credentials: URLCredentialStorage? = configuration.urlCredentialStorage
        let names: [NSNotification.Name] = [.NSHTTPCookieManagerCookiesChanged, .NSURLCredentialStorageChanged]
        let heard = Heard()
        let observers = zip(names, [storage as AnyObject?, credentials as AnyObject?]).map { name, object in
            NotificationCenter.default.addObserver(forName: name, object: object, queue: nil) { heard.add($0.name) }
        }
        defer { observers.forEach(NotificationCenter.default.removeObserver) }
        let cookie: HTTPCookie? = HTTPCookie(properties: [.name: "a", .value: "b", .path: "/", .domain: "h.test",
                                                          .sameSitePolicy: HTTPCookieStringPolicy.sameSiteLax])
        if let cookie { storage?.setCookie(cookie) }
        let policy: HTTPCookie.AcceptPolicy = configuration.httpCookieAcceptPolicy
        let space = URLProtectionSpace(host: "h.test", port: 443, protocol: "https", realm: nil,
                                       authenticationMethod: NSURLAuthenticationMethodHTTPBasic)
        credentials?.set(URLCredential(user: "u", password: "p", persistence: .forSession), for: space)

        #expect(storage?.cookies(for: URL(string: "http://h.test/")!)?.first?.sameSitePolicy == .sameSiteLax)
        #expect(policy == .onlyFromMainDocumentDomain)
        #expect(credentials?.defaultCredential(for: space)?.user == "u")
        #expect(HTTPCookie.requestHeaderFields(with: storage?.cookies ?? []) == ["Cookie": "a=b"])
        #expect(heard.all == names, "each storage posted its change under the name Apple gives it")
        #expect(names.map(\.rawValue)
                    == ["NSHTTPCookieManagerCookiesChangedNotification", "NSURLCredentialStorageChangedNotification"])
    }

    @Test func cacheNamesResolveToFWNetworking() {
        let configuration: URLSessionConfiguration = .default
        configuration.urlCache = nil
        configuration.requestCachePolicy = .returnCacheDataElseLoad
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fw-import-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache: URLCache = URLCache(memoryCapacity: 1024, diskCapacity: 0, directory: directory)
        let response: URLResponse = URLResponse(url: URL(string: "http://example.invalid/")!, mimeType: nil,
                                                expectedContentLength: 0, textEncodingName: nil)
        let cached: CachedURLResponse = CachedURLResponse(response: response, data: Data(),
                                                          storagePolicy: URLCache.StoragePolicy.allowedInMemoryOnly)
        let request = URLRequest(url: URL(string: "http://example.invalid/")!)
        cache.storeCachedResponse(cached, for: request)

        #expect(configuration.urlCache == nil)
        #expect(cache.cachedResponse(for: request) == cached)
        #expect(URLSessionConfiguration.default.urlCache === URLCache.shared)
    }

    /// Foundation declares `URLProtocol` as an unavailable placeholder and nothing for `NSURLRequest`,
    /// `NSMutableURLRequest`, `URLProtocolClient` or `NSURLSessionTransferSizeUnknown`.
    @Test func urlProtocolNamesResolveToFWNetworking() {
        let mutable: NSMutableURLRequest = NSMutableURLRequest(url: URL(string: "http://example.invalid/")!)
        URLProtocol.setProperty("v", forKey: "k", in: mutable)
        let request: URLRequest = mutable as URLRequest
        let reference: NSURLRequest = request as NSURLRequest
        let protocolType: URLProtocol.Type = URLProtocol.self
        let instance = protocolType.init(request: request, cachedResponse: nil, client: nil)
        let client: (any URLProtocolClient)? = instance.client
        let configuration: URLSessionConfiguration = .ephemeral
        configuration.protocolClasses?.insert(protocolType, at: 0)

        #expect(URLProtocol.property(forKey: "k", in: request) as? String == "v")
        #expect(reference.url == mutable.url)
        #expect(instance.request.url == request.url && client == nil && instance.cachedResponse == nil)
        #expect(configuration.protocolClasses?.count == 1)
        #expect(NSURLSessionTransferSizeUnknown == -1)
    }
}
