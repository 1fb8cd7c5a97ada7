// The public paths a request can take, each run to its end with a bounded wait (PathProbe path).

import FWNetworking
import Foundation
import TestSupport

/// How a request ended: its error (nil: success) and the body bytes the caller got.
struct ProbeOutcome: Sendable {
    var error: URLError?
    var bytes = 0
}

/// One public way of making a request.
enum ProbePath: String, CaseIterable {
    case completionHandler = "completion-handler"
    case delegate
    case dataFor = "data-for"
    case bytesFor = "bytes-for"
    case download
    case streamUpload = "stream-upload"
    case manager
    case httpManager = "http-manager"

    /// The longest any path waits for its end.
    static let bound = DispatchTimeInterval.seconds(60)

    /// The probe's configuration: short timeouts and an 8 MiB collected-body limit, so a hostile response
    /// meets every limit within seconds. The request timeout (2 s) outlasts the 1 s a streamed upload waits
    /// for `100 Continue` before it sends its body anyway.
    static func configuration(resourceTimeout: Double) -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 2
        configuration.timeoutIntervalForResource = resourceTimeout
        var limits = configuration.httpResponseLimits
        limits.maxCollectedBodySize = 8 << 20
        configuration.httpResponseLimits = limits
        return configuration
    }

    /// Loads `url` this way, on a session whose resource timeout is `resourceTimeout` seconds, and waits for
    /// the end.
    func run(_ url: URL, resourceTimeout: Double) -> ProbeOutcome {
        let configuration = Self.configuration(resourceTimeout: resourceTimeout)
        let result = LockedBox<ProbeOutcome?>(nil)
        let done = DispatchSemaphore(value: 0)
        let finish: @Sendable (ProbeOutcome) -> Void = { outcome in
            result.withLock { $0 = $0 ?? outcome }
            done.signal()
        }
        start(url, configuration: configuration, finish: finish)
        guard done.wait(timeout: .now() + Self.bound) == .success, let outcome = result.withLock({ $0 }) else {
            return ProbeOutcome(error: URLError(.unknown), bytes: -1)
        }
        return outcome
    }

    private func start(_ url: URL, configuration: URLSessionConfiguration,
                       finish: @escaping @Sendable (ProbeOutcome) -> Void) {
        switch self {
        case .completionHandler:
            URLSession(configuration: configuration).dataTask(with: url) { data, _, error in
                finish(ProbeOutcome(error: error as? URLError, bytes: data?.count ?? 0))
            }.resume()
        case .delegate, .streamUpload:
            let delegate = CountingDelegate(finish: finish)
            let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
            if self == .delegate {
                session.dataTask(with: url).resume()
            } else {
                var request = URLRequest(url: url)
                request.httpMethod = "POST"
                session.uploadTask(withStreamedRequest: request).resume()
            }
        case .download:
            URLSession(configuration: configuration).downloadTask(with: url) { location, _, error in
                let size = location.flatMap { try? FileManager.default.attributesOfItem(atPath: $0.path) }?[.size]
                finish(ProbeOutcome(error: error as? URLError, bytes: (size as? Int) ?? 0))
            }.resume()
        case .dataFor, .bytesFor:
            let session = URLSession(configuration: configuration)
            let streamed = self == .bytesFor
            Task {
                do {
                    finish(ProbeOutcome(bytes: try await Self.load(url, on: session, streamed: streamed)))
                } catch {
                    finish(ProbeOutcome(error: error as? URLError ?? URLError(.unknown)))
                }
            }
        case .manager, .httpManager:
            startOnManager(url, configuration: configuration, finish: finish)
        }
    }

    /// The body through `data(from:)`, or counted byte by byte through `bytes(from:)`.
    private static func load(_ url: URL, on session: URLSession, streamed: Bool) async throws -> Int {
        guard streamed else { return try await session.data(from: url).0.count }
        var count = 0
        for try await _ in try await session.bytes(from: url).0 { count += 1 }
        return count
    }

    private func startOnManager(_ url: URL, configuration: URLSessionConfiguration,
                                finish: @escaping @Sendable (ProbeOutcome) -> Void) {
        let manager = self == .manager ? URLSessionManager(sessionConfiguration: configuration)
            : HTTPSessionManager(baseURL: nil, sessionConfiguration: configuration)
        let serializer = HTTPResponseSerializer()
        serializer.acceptableContentTypes = nil
        manager.responseSerializer = serializer
        manager.completionQueue = DispatchQueue.global()
        let body: @Sendable (Any?) -> Int = { ($0 as? Data)?.count ?? 0 }
        if let http = manager as? HTTPSessionManager {
            http.get(urlString: url.absoluteString, success: { _, object in
                finish(ProbeOutcome(bytes: body(object)))
            }, failure: { _, error in
                finish(ProbeOutcome(error: error as? URLError ?? URLError(.unknown)))
            })
        } else {
            manager.dataTask(request: URLRequest(url: url), completionHandler: { _, object, error in
                finish(ProbeOutcome(error: error.map { $0 as? URLError ?? URLError(.unknown) }, bytes: body(object)))
            }).resume()
        }
    }
}

// MARK: - CountingDelegate

/// The data delegate of the delegate and stream-upload paths: supplies the upload's body stream, counts the
/// response body, reports the end.
final class CountingDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let received = LockedBox(0)
    private let finish: @Sendable (ProbeOutcome) -> Void

    init(finish: @escaping @Sendable (ProbeOutcome) -> Void) {
        self.finish = finish
    }

    func urlSession(_ session: URLSession, task: URLSessionTask,
                    needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void) {
        completionHandler(InputStream(data: Data("a streamed upload".utf8)))
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        received.withLock { $0 += data.count }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        finish(ProbeOutcome(error: error.map { $0 as? URLError ?? URLError(.unknown) },
                            bytes: received.withLock { $0 }))
    }
}
