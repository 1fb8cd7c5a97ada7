import Foundation
import FWNetworking

// MARK: - Fetching

/// Fetches the URLs of `options` one after another on one session (so connections are reused); returns
/// curl's exit status (see `ExitCode`). The `-b` files are read first; the `-c` jar is written at the end.
func fetch(_ given: Options) async -> Int32 {
    let loaded = given.cookies.load(verbose: given.verbose)
    var adjusted = given
    adjusted.cookies.pairs += loaded.everyHost
    let options = adjusted
    guard let (configuration, identity) = sessionSetup(options, cookies: loaded.cookies) else { return ExitCode.usage }
    let revocationLists: CertificateRevocationLists?
    let transparencyLogs: CertificateTransparencyLogs?
    do throws(Options.UsageError) {
        revocationLists = try options.revocationLists()
        transparencyLogs = try options.transparencyLogs()
    } catch {
        Terminal.error("fwcurl: \(error)")
        return ExitCode.usage
    }
    configuration.tlsCertificateTransparencyPolicy = CertificateTransparencyPolicy(
        logs: transparencyLogs, minimumLogs: options.pinning.ctMinimumLogs)
    let policy = TLSPolicy(insecure: options.insecure, pins: options.pinnedPublicKeys, showChain: options.showChain,
                           identity: identity, pinning: options.pinning, revocationLists: revocationLists,
                           transparencyLogs: options.pinning.requireCT ? transparencyLogs : nil)
    if options.verbose, options.urls.contains(where: { ["https", "wss"].contains($0.scheme?.lowercased()) }) {
        // Which anchors verify servers: curl's "CAfile" line, or the system store found at run time.
        Terminal.error("* " + (options.caCertificateFile.map { "CAfile: \($0)" } ?? "trust store: \(SystemTrustStore.current)"))
    }
    if let id = options.background {
        return await fetchInBackground(options, identifier: id, configuration: configuration, policy: policy)
    }
    // No session delegate: each URL's FetchTrace gets its task's challenges (task-level routing). With
    // `--retry` the session manager is the session's delegate and hands them to the same place.
    let manager = options.retry.count > 0 ? RetriedFetch.manager(configuration, options: options) : nil
    let session = manager?.session ?? URLSession(configuration: configuration)
    defer { session.finishTasksAndInvalidate() }
    defer { options.cookies.writeJar(from: session.configuration.httpCookieStorage) }

    let traceLog = options.traceFile.flatMap(TraceLog.init(path:))
    if let path = options.traceFile, traceLog == nil { Terminal.error("fwcurl: cannot write the trace to \(path)") }
    let eventLog = options.conformance.traceJSONFile.flatMap(JSONTraceLog.init(path:))
    if let path = options.conformance.traceJSONFile, eventLog == nil {
        Terminal.error("fwcurl: cannot write the trace to \(path)")
    }
    let makeTrace = { @Sendable in
        FetchTrace(verbose: options.verbose, traceLog: traceLog, policy: policy, eventLog: eventLog)
    }
    if options.urls.count == 1, ["ws", "wss"].contains(options.urls[0].scheme?.lowercased()) {
        do {
            return await runWebSocket(try options.request(forURLAt: 0, resumeOffset: nil), options: options,
                                      session: session, trace: makeTrace())
        } catch {
            Terminal.error("fwcurl: (26) \(error.localizedDescription)")
            return ExitCode.readError
        }
    }
    var results: [FetchResult] = []
    var status: Int32 = 0
    if options.pipeline.enabled {
        guard let pipelined = await fetchPipelined(options, session: session, makeTrace: makeTrace) else {
            return ExitCode.readError
        }
        results = pipelined
        for result in results { if let failure = exitStatus(of: result, options: options) { status = failure } }
    }
    for index in options.urls.indices where !options.pipeline.enabled {
        let plan = options.plan(forURLAt: index)
        let request: URLRequest
        do {
            request = try options.request(forURLAt: index, resumeOffset: plan.resumeOffset)
        } catch {
            Terminal.error("fwcurl: (26) \(error.localizedDescription)")
            return ExitCode.readError
        }
        let result: FetchResult
        if let manager {
            result = await RetriedFetch.fetch(request, index: index, options: options, manager: manager,
                                              makeTrace: makeTrace)
        } else {
            result = await Transfer(plan: plan, trace: makeTrace()).run(request, uploading: options.uploadFile,
                                                                        on: session)
        }
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

/// The session configuration and client identity `options` ask for, its cookie storage holding `cookies`;
/// nil (the problem printed) when a `--cacert` or `--cert` file or a proxy option cannot be used.
private func sessionSetup(_ options: Options, cookies: [HTTPCookie]) -> (URLSessionConfiguration, SecIdentity?)? {
    // Like curl: no cache, and no cookies unless asked for (then every cookie a response sets is kept).
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    if options.cookies.engineEnabled {
        configuration.httpCookieAcceptPolicy = .always
        for cookie in cookies { configuration.httpCookieStorage?.setCookie(cookie) }
    } else {
        configuration.httpCookieStorage = nil
    }
    if let maxTime = options.maxTime { configuration.timeoutIntervalForResource = maxTime }
    options.conformance.apply(to: configuration)
    options.pipeline.apply(to: configuration)
    if let path = options.caCertificateFile {
        do {
            configuration.tlsTrustRoots = .certificates(try Certificate.certificates(pemFile: path))
        } catch {
            Terminal.error("fwcurl: cannot read CA certificates from \(path): \(error)")
            return nil
        }
    }
    if let minimum = options.tlsMinimum { configuration.tlsMinimumSupportedProtocolVersion = minimum }
    configuration.tlsRequestsOCSPStapling = options.pinning.certStatus
    configuration.tlsRevocationListFetching = options.revocationListFetching
    configuration.tlsRequestsSignedCertificateTimestamps = options.pinning.ctLogList != nil
    do throws(Options.UsageError) {
        try options.applyProxies(to: configuration)
    } catch {
        Terminal.error("fwcurl: \(error)")
        return nil
    }
    guard let path = options.certificateFile else { return (configuration, nil) }
    do {
        let identity = try TLSPolicy.identity(certificate: path, password: options.certificatePassword,
                                              key: options.keyFile)
        return (configuration, identity)
    } catch {
        Terminal.error("fwcurl: \(error)")
        return nil
    }
}
