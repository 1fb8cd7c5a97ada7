import Foundation
import FWNetworking

// MARK: - FetchResult

/// The outcome of one URL.
enum FetchResult {
    case response(HTTPURLResponse, body: Data, trace: FetchTrace)
    case failure(URLError, trace: FetchTrace)

    /// The `--json` object of the contract in the README.
    var json: JSONValue {
        switch self {
        case .response(let response, let body, let trace):
            func pairs(_ fields: [(name: String, value: String)]) -> JSONValue {
                .array(fields.map { .array([.string($0.name), .string($0.value)]) })
            }
            var members: [(String, JSONValue)] = [
                ("status", .int(response.statusCode)),
                ("headers", pairs(response.orderedHeaderFields)),
                ("body_base64", .string(body.base64EncodedString())),
                ("trailers", pairs(trace.trailers)),
            ]
            if let tls = trace.tls {
                members.append(("tls", .object([
                    ("version", .string(tls.version)),
                    ("cipher", .string(tls.cipher)),
                    ("cipher_id", tls.cipherID.map { .int(Int($0)) } ?? .null),
                    ("resumed", .bool(tls.resumed)),
                    ("alpn", tls.alpn.map(JSONValue.string) ?? .null),
                    ("trust", .string(trace.trustMode)),
                ])))
            }
            return .object(members)
        case .failure(let error, let trace):
            var members: [(String, JSONValue)] = [
                ("code", .int(error.code.rawValue)),
                ("message", .string(error.localizedDescription)),
            ]
            if let reason = Self.tlsFailureReason(error, trace: trace) {
                members.append(("tls", .object([("trust", .string(trace.trustMode)), ("reason", .string(reason))])))
            }
            return .object([("error", .object(members))])
        }
    }

    /// Why a TLS connection failed (handshake, server trust, pin, client certificate); nil when the
    /// failure was not a TLS one.
    static func tlsFailureReason(_ error: URLError, trace: FetchTrace) -> String? {
        if let rejection = trace.trustRejection { return rejection }
        let tlsCodes: Set<URLError.Code> = [
            .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
            .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
            .clientCertificateRequired,
        ]
        guard tlsCodes.contains(error.code) else { return nil }
        return error.userInfo[NSUnderlyingErrorKey].map { "\($0)" } ?? error.localizedDescription
    }
}

// MARK: - Fetching

/// Fetches the URLs of `options` one after another on one session (so connections are reused).
func fetch(_ options: Options) async -> Int32 {
    let configuration = URLSessionConfiguration.default
    if let maxTime = options.maxTime { configuration.timeoutIntervalForResource = maxTime }
    if let path = options.caCertificateFile {
        do {
            configuration.tlsTrustRoots = .certificates(try Certificate.certificates(pemFile: path))
        } catch {
            Terminal.error("fwcurl: cannot read CA certificates from \(path): \(error)")
            return 2
        }
    }
    if let minimum = options.tlsMinimum { configuration.tlsMinimumSupportedProtocolVersion = minimum }
    var identity: SecIdentity?
    if let path = options.certificateFile {
        do {
            identity = try TLSPolicy.identity(certificate: path, password: options.certificatePassword,
                                              key: options.keyFile)
        } catch {
            Terminal.error("fwcurl: \(error)")
            return 2
        }
    }
    let policy = TLSPolicy(insecure: options.insecure, pins: options.pinnedPublicKeys,
                           showChain: options.showChain, identity: identity)
    // No session delegate: each URL's FetchTrace gets its task's challenges (task-level routing).
    let session = URLSession(configuration: configuration)
    defer { session.finishTasksAndInvalidate() }

    let traceLog = options.traceFile.flatMap(TraceLog.init(path:))
    if let path = options.traceFile, traceLog == nil { Terminal.error("fwcurl: cannot write the trace to \(path)") }
    var results: [FetchResult] = []
    for url in options.urls {
        let trace = FetchTrace(verbose: options.verbose, traceLog: traceLog, policy: policy)
        do {
            let (body, response) = try await session.data(for: options.request(for: url), delegate: trace)
            guard let http = response as? HTTPURLResponse else {
                results.append(.failure(URLError(.badServerResponse), trace: trace))
                continue
            }
            results.append(.response(http, body: body, trace: trace))
        } catch let error as URLError {
            results.append(.failure(error, trace: trace))
        } catch {
            results.append(.failure(URLError(.unknown), trace: trace))
        }
    }

    if options.json {
        let json = results.count == 1 ? results[0].json : .object([("responses", .array(results.map(\.json)))])
        Terminal.output(Data((json.text + "\n").utf8))
    } else {
        for result in results { write(result, options: options) }
    }
    let failed = results.contains { if case .failure = $0 { return true } else { return false } }
    return failed ? 1 : 0
}

private func write(_ result: FetchResult, options: Options) {
    switch result {
    case .failure(let error, let trace):
        if options.verbose, let reason = FetchResult.tlsFailureReason(error, trace: trace) {
            Terminal.error("* TLS failed (\(trace.trustMode) trust): \(reason)")
        }
        Terminal.error("fwcurl: (\(error.code.rawValue)) \(error.localizedDescription)")
    case .response(_, let body, let trace):
        if options.includeHeaders { Terminal.output(trace.responseHead) }
        if let path = options.outputFile {
            if !FileManager.default.createFile(atPath: path, contents: body) {
                Terminal.error("fwcurl: cannot write \(path)")
            }
        } else {
            Terminal.output(body)
        }
    }
}
