// bench-ahc: AsyncHTTPClient in a closed loop (see BenchSupport/ClosedLoop.swift), one shared
// HTTPClient on NIO's singleton event-loop group (one loop per core), HTTP/1.1 only, the per-host
// connection limit set to `--max-conns`.
//
// `--api future` (the default, the same loop as the other clients): `execute(request:)` futures (mode
// `stream`: a response delegate that counts and drops the body parts); each completion starts the next
// request. `--api async`: N Swift tasks each awaiting `execute(_:timeout:)` and collecting (or, in mode
// `stream`, iterating) the body; measured faster at c=32 and slower at c=1 than futures.
// Mode `close` sends `Connection: close`.
//
// HTTPS: `--cacert FILE` becomes the only trust roots of the TLS configuration (swift-nio-ssl, BoringSSL).
// swift-nio-ssl has no client-side session resumption (it never calls SSL_set_session), so every new
// connection is a full handshake: `--tls-resumption off` needs nothing and `on` is reported "n/a".

import AsyncHTTPClient
import BenchSupport
import NIOCore
import NIOHTTP1
import NIOSSL

let arguments = ClientArguments.parseOrExit(client: "bench-ahc")
if arguments.mode == .idle { reportIdle(client: "ahc", arguments: arguments) }
if arguments.tlsResumption == true {
    notApplicable("ahc", "swift-nio-ssl has no client-side TLS session resumption: every connection is a full "
                  + "handshake")
}
if arguments.mode.usesFile {
    fail("bench-ahc", "mode \(arguments.mode) is not implemented")
}
var configuration = HTTPClient.Configuration()
configuration.httpVersion = .http1Only
configuration.decompression = .disabled
configuration.connectionPool = .init(idleTimeout: .seconds(60),
                                     concurrentHTTP1ConnectionsPerHostSoftLimit: arguments.maxConnections)
if let path = arguments.caCertificates {
    var tls = TLSConfiguration.makeClientConfiguration()
    tls.trustRoots = .file(path)
    configuration.tlsConfiguration = tls
}
let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
let url = arguments.url.absoluteString
let closing = arguments.mode == .close
let maxBody = 256 << 20
let loop = ClosedLoop(concurrency: arguments.concurrency, amount: arguments.amount)

switch arguments.api ?? "future" {
case "future":
    let request: HTTPClient.Request
    do {
        request = try HTTPClient.Request(url: url, method: .GET,
                                         headers: closing ? ["Connection": "close"] : [:])
    } catch {
        fail("bench-ahc", "bad request: \(error)")
    }
    if arguments.mode == .stream {
        measure(client: "ahc", api: "delegate", arguments: arguments) {
            loop.run { complete in
                client.execute(request: request, delegate: DroppingDelegate()).futureResult.whenComplete { result in
                    switch result {
                    case .success(let bytes): complete(bytes.map { .success(bytes: $0) } ?? .failure("status"))
                    case .failure(let error): complete(.failure("\(error)"))
                    }
                }
            }
        }
    } else {
        measure(client: "ahc", api: "future", arguments: arguments) {
            loop.run { complete in
                client.execute(request: request).whenComplete { result in
                    switch result {
                    case .success(let response) where response.status == .ok:
                        complete(.success(bytes: response.body?.readableBytes ?? 0))
                    case .success(let response):
                        complete(.failure("status \(response.status)"))
                    case .failure(let error):
                        complete(.failure("\(error)"))
                    }
                }
            }
        }
    }
case "async":
    var request = HTTPClientRequest(url: url)
    if closing { request.headers.add(name: "Connection", value: "close") }
    let template = request
    let streaming = arguments.mode == .stream
    await measure(client: "ahc", api: "async", arguments: arguments) {
        await loop.runAsync {
            do {
                let response = try await client.execute(template, timeout: .seconds(60))
                guard response.status == .ok else { return .failure("status \(response.status)") }
                if streaming {
                    var bytes = 0
                    for try await part in response.body { bytes += part.readableBytes }
                    return .success(bytes: bytes)
                }
                return .success(bytes: try await response.body.collect(upTo: maxBody).readableBytes)
            } catch {
                return .failure("\(error)")
            }
        }
    }
default:
    fail("bench-ahc", "unknown --api \(arguments.api ?? ""); use future or async")
}

/// Counts the body bytes of one response and drops them; the result is nil unless the status is 200.
final class DroppingDelegate: HTTPClientResponseDelegate, @unchecked Sendable {
    typealias Response = Int?

    // `bytes` and `ok`: AsyncHTTPClient calls a delegate on its request's event loop only.
    private var bytes = 0
    private var ok = false

    func didReceiveHead(task: HTTPClient.Task<Int?>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        ok = head.status == .ok
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Int?>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        bytes += buffer.readableBytes
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<Int?>) throws -> Int? {
        ok ? bytes : nil
    }
}
