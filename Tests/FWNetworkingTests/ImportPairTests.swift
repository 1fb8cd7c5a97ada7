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
}
