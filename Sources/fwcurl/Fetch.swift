import Foundation
import FWNetworking

// MARK: - Fetch

/// Collects what a task's trace reports: printed at once for `-v`, kept for `-i` and `--json`.
final class FetchTrace: NSObject, URLSessionTaskTraceDelegate, @unchecked Sendable { // vars: under `lock`
    private let verbose: Bool
    private let traceLog: TraceLog?
    private let lock = NSLock()
    private var responseHeadBytes = Data()
    private var trailerFields: [(name: String, value: String)] = []

    init(verbose: Bool, traceLog: TraceLog?) {
        self.verbose = verbose
        self.traceLog = traceLog
    }

    var responseHead: Data { lock.withLock { responseHeadBytes } }
    var trailers: [(name: String, value: String)] { lock.withLock { trailerFields } }

    func urlSession(_ session: URLSession, task: URLSessionTask, didUseConnectionTo remoteAddress: String?,
                    reused: Bool) {
        let line = "\(reused ? "Re-using connection to" : "Connected to") \(remoteAddress ?? "?")"
        traceLog?.info(line)
        if verbose { Terminal.error("* " + line) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didWriteBytes bytes: Data) {
        traceLog?.dump("=> Send data", bytes)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didReadBytes bytes: Data) {
        traceLog?.dump("<= Recv data", bytes)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didSendRequestHead head: Data) {
        if verbose { Terminal.error(Self.lines(of: head, prefix: "> ")) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didReceiveResponseHead head: Data) {
        lock.withLock { responseHeadBytes = head }
        if verbose { Terminal.error(Self.lines(of: head, prefix: "< ")) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask,
                    didReceiveTrailers trailers: [(name: String, value: String)]) {
        lock.withLock { trailerFields = trailers }
    }

    /// Head bytes as text lines (ISO-8859-1), each with `prefix`, without the final empty line.
    private static func lines(of head: Data, prefix: String) -> String {
        let text = String(head.map { Character(Unicode.Scalar($0)) })
        return text.components(separatedBy: "\r\n").filter { !$0.isEmpty }.map { prefix + $0 }.joined(separator: "\n")
    }
}

/// The outcome of one URL.
enum FetchResult {
    case response(HTTPURLResponse, body: Data, trace: FetchTrace)
    case failure(URLError)

    /// The `--json` object of the contract in the README.
    var json: JSONValue {
        switch self {
        case .response(let response, let body, let trace):
            func pairs(_ fields: [(name: String, value: String)]) -> JSONValue {
                .array(fields.map { .array([.string($0.name), .string($0.value)]) })
            }
            return .object([
                ("status", .int(response.statusCode)),
                ("headers", pairs(response.orderedHeaderFields)),
                ("body_base64", .string(body.base64EncodedString())),
                ("trailers", pairs(trace.trailers)),
            ])
        case .failure(let error):
            return .object([("error", .object([
                ("code", .int(error.code.rawValue)),
                ("message", .string(error.localizedDescription)),
            ]))])
        }
    }
}

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
    let trust = ServerTrustPolicy(insecure: options.insecure, pins: options.pinnedPublicKeys,
                                  showChain: options.showChain)
    let session = URLSession(configuration: configuration, delegate: trust, delegateQueue: nil)
    defer { session.finishTasksAndInvalidate() }

    let traceLog = options.traceFile.flatMap(TraceLog.init(path:))
    if let path = options.traceFile, traceLog == nil { Terminal.error("fwcurl: cannot write the trace to \(path)") }
    var results: [FetchResult] = []
    for url in options.urls {
        let trace = FetchTrace(verbose: options.verbose, traceLog: traceLog)
        do {
            let (body, response) = try await session.data(for: options.request(for: url), delegate: trace)
            guard let http = response as? HTTPURLResponse else {
                results.append(.failure(URLError(.badServerResponse)))
                continue
            }
            results.append(.response(http, body: body, trace: trace))
        } catch let error as URLError {
            results.append(.failure(error))
        } catch {
            results.append(.failure(URLError(.unknown)))
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
    case .failure(let error):
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

/// Unbuffered writes to stdout and stderr.
enum Terminal {
    static func output(_ data: Data) { FileHandle.standardOutput.write(data) }
    static func error(_ line: String) { FileHandle.standardError.write(Data((line + "\n").utf8)) }
}

/// `--trace-ascii`: every byte exchanged, as curl prints it: a header line per chunk, then the bytes as
/// text lines with their offsets, non-printable bytes shown as '.'.
final class TraceLog: @unchecked Sendable { // `handle` writes are serialised by `lock`
    private let handle: FileHandle
    private let lock = NSLock()

    init?(path: String) {
        if path == "-" {
            handle = .standardError
        } else {
            guard FileManager.default.createFile(atPath: path, contents: nil),
                  let file = FileHandle(forWritingAtPath: path) else { return nil }
            handle = file
        }
    }

    func info(_ text: String) {
        write("== Info: \(text)\n")
    }

    func dump(_ title: String, _ bytes: Data) {
        var text = "\(title), \(bytes.count) bytes (0x\(String(bytes.count, radix: 16)))\n"
        var offset = 0
        var line = ""
        for byte in bytes {
            if line.isEmpty { line = String(format: "%04x: ", offset) }
            offset += 1
            switch byte {
            case 0x0A:
                text += line + "\n"
                line = ""
            case 0x0D:
                continue
            case 0x20..<0x7F:
                line.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                line += "."
            }
        }
        if !line.isEmpty { text += line + "\n" }
        write(text)
    }

    private func write(_ text: String) {
        lock.withLock { handle.write(Data(text.utf8)) }
    }
}

/// `-k`, `--pinnedpubkey` and `--show-chain`, as the session delegate's server-trust answer. As with
/// curl, a pin is checked in addition to the normal verification unless `-k` turns that off; the pins
/// match the leaf's public key.
final class ServerTrustPolicy: NSObject, URLSessionDelegate, @unchecked Sendable { // lets only
    private let insecure: Bool
    private let pins: [String]?
    private let showChain: Bool

    init(insecure: Bool, pins: [String]?, showChain: Bool) {
        self.insecure = insecure
        self.pins = pins
        self.showChain = showChain
    }

    func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable
                        (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        guard challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust,
              let trust = challenge.protectionSpace.serverTrust else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        let chain = (SecTrustCopyCertificateChain(trust) as? [SecCertificate] ?? []).map(\.certificate)
        if showChain { Self.print(chain, host: challenge.protectionSpace.host) }
        if let pins, !pins.contains(chain.first?.spkiPin ?? "") {
            Terminal.error("fwcurl: the server's public key matches no --pinnedpubkey pin " +
                           "(it is \(chain.first?.spkiPin ?? "missing"))")
            completionHandler(.cancelAuthenticationChallenge, nil)
            return
        }
        completionHandler(insecure ? .useCredential : .performDefaultHandling,
                          insecure ? URLCredential(trust: trust) : nil)
    }

    private static func print(_ chain: [Certificate], host: String) {
        let format = DateFormatter()
        format.dateFormat = "yyyy-MM-dd"
        format.timeZone = TimeZone(identifier: "UTC")
        func day(_ seconds: Int64) -> String { format.string(from: Date(timeIntervalSince1970: TimeInterval(seconds))) }
        var lines = ["* Certificate chain of \(host):"]
        for (index, certificate) in chain.enumerated() {
            lines.append("*  \(index) subject: \(certificate.subjectText)")
            lines.append("*    issuer: \(certificate.issuerText)")
            lines.append("*    valid: \(day(certificate.notBefore)) to \(day(certificate.notAfter))")
            lines.append("*    pin: \(certificate.spkiPin)")
        }
        Terminal.error(lines.joined(separator: "\n"))
    }
}
