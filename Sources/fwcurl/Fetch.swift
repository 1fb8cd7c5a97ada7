import Foundation
import FWNetworking

// MARK: - Fetching

/// Fetches the URLs of `options` one after another on one session (so connections are reused); returns
/// curl's exit status (see `ExitCode`).
func fetch(_ options: Options) async -> Int32 {
    let configuration = URLSessionConfiguration.default
    if let maxTime = options.maxTime { configuration.timeoutIntervalForResource = maxTime }
    if let path = options.caCertificateFile {
        do {
            configuration.tlsTrustRoots = .certificates(try Certificate.certificates(pemFile: path))
        } catch {
            Terminal.error("fwcurl: cannot read CA certificates from \(path): \(error)")
            return ExitCode.usage
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
            return ExitCode.usage
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
    var status: Int32 = 0
    for index in options.urls.indices {
        let plan = options.plan(forURLAt: index)
        let transfer = Transfer(plan: plan, trace: FetchTrace(verbose: options.verbose, traceLog: traceLog,
                                                              policy: policy))
        let request: URLRequest
        do {
            request = try options.request(forURLAt: index, resumeOffset: plan.resumeOffset)
        } catch {
            Terminal.error("fwcurl: (26) \(error.localizedDescription)")
            return ExitCode.readError
        }
        let result = await transfer.run(request, uploading: options.uploadFile, on: session)
        if let failure = exitStatus(of: result, options: options) { status = failure }
        results.append(result)
    }

    if options.json {
        let json = results.count == 1 ? results[0].json : .object([("responses", .array(results.map(\.json)))])
        Terminal.output(Data((json.text + "\n").utf8))
    }
    return status
}

/// curl's exit status for a URL that failed (reported on stderr unless `--json`); nil when it did not.
private func exitStatus(of result: FetchResult, options: Options) -> Int32? {
    switch result {
    case .failure(let error, let record):
        if !options.json { report(error, record: record, options: options) }
        return ExitCode.failure(error, record: record)
    case .response(let response, _, _) where options.fail && response.statusCode >= 400:
        if !options.json { Terminal.error("fwcurl: (22) The requested URL returned error: \(response.statusCode)") }
        return ExitCode.httpError
    case .response:
        return nil
    }
}

/// A failure as text on stderr (the body, if any, was already written as it arrived).
private func report(_ error: URLError, record: TransferRecord, options: Options) {
    if options.verbose, let reason = FetchResult.tlsFailureReason(error, record: record) {
        Terminal.error("* TLS failed (\(record.trustMode) trust): \(reason)")
    }
    Terminal.error("fwcurl: (\(error.code.rawValue)) \(error.localizedDescription)")
}
