import Foundation
import FWNetworking
import TestSupport

// MARK: - One row's servers, proxy and session

extension FaultSuite {
    /// The servers, the proxy and the session of one row run: nginx (always: the session must keep working
    /// against it), `openssl s_server` for TLS rows, the FaultProxy in front of the row's upstream, and the
    /// port of a connect fault.
    final class Fixture: Sendable {
        let row: Row
        let api: API
        let nginx: NginxServer
        let openssl: OpenSSLServer?
        let proxy: FaultProxy
        /// An `UnacceptedListener` or a closed port, for the connect rows.
        let unresponsive: UnacceptedListener?
        let refusedPort: Int?
        let session: URLSession
        let delegate = FaultDelegate()
        /// This process's sockets on the row's ports before any request: the listeners of the proxy and
        /// of a connect fault, and the connection that fills the `UnacceptedListener`'s queue.
        let baselineSockets: Int

        init(_ row: Row, _ api: API) throws {
            self.row = row
            self.api = api
            nginx = try NginxServer(files: ["files/body.bin": FaultSuite.fileBody], serverConfig: """
                location = /small { return 200 "small\\n"; }
                location /upload/ { dav_methods PUT; create_full_put_path on; client_max_body_size 0; }
                keepalive_timeout 60s;
                """)
            openssl = row.upstream == .openssl ? try OpenSSLServer.start() : nil
            var fault = FaultProxy.Fault.none
            if case .proxy(let rowFault) = row.setup { fault = rowFault }
            proxy = try FaultProxy(upstreamPort: openssl?.port ?? nginx.port, fault: fault)
            if case .unresponsivePort = row.setup {
                unresponsive = try UnacceptedListener()
            } else {
                unresponsive = nil
            }
            if case .refusedPort = row.setup {
                let closed = try ScriptedServer { _ in }
                refusedPort = closed.port
                closed.stop()
            } else {
                refusedPort = nil
            }
            session = try Self.session(for: row, api)
            baselineSockets = ProcessResources.socketCount(touching: Set(
                [proxy.port, proxy.upstreamPort, unresponsive?.port, refusedPort].compactMap { $0 }))
        }

        /// The session: the restrictive timeout on the session's side for the delegate and download rows, on
        /// the request's side (its initialiser) for the completion-handler and async rows.
        private static func session(for row: Row, _ api: API) throws -> URLSession {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.tlsTrustRoots = .certificates(try Certificate.certificates(
                pemFile: TLSFixtures.path("root-ca.pem")))
            configuration.timeoutIntervalForRequest = api.restrictsOnTheSession ? row.timeout : 30
            if row.phase == .queue { configuration.httpMaximumConnectionsPerHost = 1 }
            return URLSession(configuration: configuration)
        }

        func stop() {
            session.invalidateAndCancel()
            proxy.stop()
            unresponsive?.stop()
            openssl?.stop()
            nginx.stop()
        }

        // MARK: URLs and requests

        /// Where requests through the proxy go.
        var proxyBase: String { "\(openssl == nil ? "http" : "https")://127.0.0.1:\(proxy.port)" }

        /// The URL of the measured request.
        var measuredURL: URL {
            switch row.setup {
            case .unresponsivePort: URL(string: "http://127.0.0.1:\(unresponsive?.port ?? 9)/small")!
            case .refusedPort: URL(string: "http://127.0.0.1:\(refusedPort ?? 9)/small")!
            case .proxy: URL(string: proxyBase + path(for: row.load))!
            }
        }

        private func path(for load: Load) -> String {
            guard openssl == nil else { return "/" }
            switch load {
            case .small, .post: return "/small"
            case .file: return "/files/body.bin"
            case .upload: return "/upload/\(UUID().uuidString).bin"
            }
        }

        /// The measured request, its timeout given to the initialiser when the row restricts on the request.
        var measuredRequest: URLRequest {
            var request = api.restrictsOnTheSession ? URLRequest(url: measuredURL)
                : URLRequest(url: measuredURL, cachePolicy: .useProtocolCachePolicy, timeoutInterval: row.timeout)
            switch row.load {
            case .small, .file: break
            case .upload(let size):
                request.httpMethod = "PUT"
                request.httpBody = Data(count: size)
            case .post:
                request.httpMethod = "POST"
                request.httpBody = Data("posted".utf8)
            }
            return request
        }

        /// A request that must work once the fault is gone: nginx's `/small`, or s_server's page.
        var healthyRequest: URLRequest {
            URLRequest(url: URL(string: proxyBase + (openssl == nil ? "/small" : "/"))!)
        }

        /// Every port whose sockets this process may hold for the row (the proxy's, its upstream's, the
        /// connect fault's).
        var ports: Set<Int> {
            Set([proxy.port, proxy.upstreamPort, unresponsive?.port, refusedPort].compactMap { $0 })
        }
    }

    /// 256 KiB that do not compress (nginx serves `.bin` as application/octet-stream, unencoded).
    static let fileBody: [UInt8] = {
        var generator = SplitMix64(seed: 18)
        return (0..<fileSize).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
    }()
}
