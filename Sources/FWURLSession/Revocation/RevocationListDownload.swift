import Foundation
import FWTLS
import FWTransport

// MARK: - RevocationListDownload

/// One CRL fetched from one distribution point, with its size bound, through a session of its own.
///
/// The session is ephemeral (no cache, cookies or credentials), takes the checking session's proxies and
/// trust roots, and has no `tlsRevocationListFetching`: a fetch never checks revocation itself, so it can
/// never recurse, and it carries no pins. A status other than 200, a Content-Length over the bound, or a
/// body growing past it cancels the task at once; the body must then read as a CRL (DER or PEM).
/// `@unchecked Sendable`: `body` and `failure` are only touched on the session's serial delegate queue,
/// and `completion` is taken out of its box so it runs once.
final class RevocationListDownload: NSObject, URLSessionDataDelegate, @unchecked Sendable { // see above
    private let uri: String
    private let maximumSize: Int
    private var body: [UInt8] = [] // delegate queue only
    private var failure: String? // delegate queue only
    private let completion: LockedBox<(@Sendable (Result<CertificateRevocationLists, RevocationListDownloadError>) -> Void)?>

    private init(uri: String, maximumSize: Int,
                 completion: @escaping @Sendable (Result<CertificateRevocationLists, RevocationListDownloadError>) -> Void) {
        self.uri = uri
        self.maximumSize = maximumSize
        self.completion = LockedBox(completion)
    }

    /// Fetches `uri` within the bounds of `fetching`, proxied as `parent` says; `completion` runs once, on
    /// the download session's delegate queue.
    static func start(
        _ uri: String, fetching: RevocationListFetching, parent: URLSessionConfiguration,
        completion: @escaping @Sendable (Result<CertificateRevocationLists, RevocationListDownloadError>) -> Void
    ) {
        guard let url = URL(string: uri), url.scheme?.lowercased() == "http", url.host != nil else {
            completion(.failure(RevocationListDownloadError(reason: "not an http:// URL")))
            return
        }
        let download = RevocationListDownload(uri: uri, maximumSize: fetching.maximumSize, completion: completion)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.urlCredentialStorage = nil
        configuration.timeoutIntervalForRequest = fetching.timeoutInterval
        configuration.timeoutIntervalForResource = fetching.timeoutInterval
        configuration.connectionProxyDictionary = parent.connectionProxyDictionary
        configuration.tlsTrustRoots = parent.tlsTrustRoots
        configuration.tlsRevocationListFetching = nil
        let session = URLSession(configuration: configuration, delegate: download, delegateQueue: nil)
        session.dataTask(with: url).resume()
        session.finishTasksAndInvalidate()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        if status != 200 {
            failure = "the server answered HTTP \(status)"
        } else if response.expectedContentLength > Int64(maximumSize) {
            failure = "its Content-Length (\(response.expectedContentLength)) is over the maximum of \(maximumSize) bytes"
        }
        completionHandler(failure == nil ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard failure == nil else { return }
        guard body.count + data.count <= maximumSize else {
            failure = "it is larger than the maximum of \(maximumSize) bytes"
            body = []
            dataTask.cancel()
            return
        }
        body.append(contentsOf: data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let result: Result<CertificateRevocationLists, RevocationListDownloadError>
        if let failure {
            result = .failure(RevocationListDownloadError(reason: failure))
        } else if let error {
            result = .failure(RevocationListDownloadError(reason: error.localizedDescription))
        } else {
            do throws(TLSError) {
                result = .success(try CertificateRevocationLists(bytes: body))
            } catch {
                result = .failure(RevocationListDownloadError(reason: "the body is not a CRL (\(error.reason))"))
            }
        }
        let completion = self.completion.withLock { completion in
            defer { completion = nil }
            return completion
        }
        completion?(result)
    }
}

/// Why a distribution point gave no list.
struct RevocationListDownloadError: Error {
    var reason: String
}
