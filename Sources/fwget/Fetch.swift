import FWHTTP

// MARK: - Fetch

/// One transfer: the client the options ask for, the request, the body to its output, and the exit code.
///
/// Blocking calls on the main thread (`HTTPClient.blockingExecute`): fwget starts no task, so the process has
/// no cooperative thread pool or dispatch threads, only the client's loop (smaller and faster to start).
struct Fetch {
    let options: Options

    /// Runs the transfer; returns the exit code (0, or fwcurl's code for the failure).
    func run() -> Int32 {
        guard let configuration = configuration() else { return 2 }
        guard let request = request() else { return 26 }
        let client: HTTPClient
        do throws(IOError) {
            client = try HTTPClient(configuration: configuration)
        } catch {
            Output.error("fwget: cannot start: \(error)")
            return 1
        }
        defer { client.shutdown() }
        let output = Output(path: options.output)
        guard output.open() else { return report(.cannotWrite(options.output ?? "stdout")) }
        do throws(HTTPClientError) {
            let response = try client.blockingExecute(request)
            var kept: [UInt8] = []
            while let chunk = try response.body.blockingNext() {
                if options.json && options.output == nil {
                    kept += chunk
                } else if !output.write(chunk) {
                    return report(.cannotWrite(options.output ?? "stdout"))
                }
            }
            guard output.close() else { return report(.cannotWrite(options.output ?? "stdout")) }
            if options.json { printJSON(response, body: kept) }
            return 0
        } catch {
            return report(Failure(error))
        }
    }

    /// Prints fwcurl's one-URL success object.
    private func printJSON(_ response: HTTPClientResponse, body: [UInt8]) {
        func pairs(_ fields: HTTPHeaders?) -> JSONValue {
            .array((fields.map(Array.init) ?? []).map { .array([.string($0.name), .string($0.value)]) })
        }
        var members: [(String, JSONValue)] = [
            ("status", .int(response.status)),
            ("headers", pairs(response.headers)),
            ("body_base64", .string(Base64.encode(body))),
            ("trailers", pairs(response.body.trailers)),
        ]
        if let tls = response.metrics.last?.tls {
            members.append(("tls", .object([
                ("version", .string(tls.version.name)),
                ("cipher", .string(tls.cipherSuite.name)),
                ("cipher_id", .int(Int(tls.cipherSuite.id))),
                ("resumed", .bool(tls.isResumed)),
                ("alpn", tls.alpn.map(JSONValue.string) ?? .null),
                ("trust", .string(options.trustMode)),
            ])))
        }
        _ = Output.writeAll(Array((JSONValue.object(members).text + "\n").utf8), to: 1)
    }

    /// Reports a failure (JSON on stdout with `--json`, else a line on stderr); returns its exit code.
    private func report(_ failure: Failure) -> Int32 {
        if options.json {
            _ = Output.writeAll(Array((failure.json(trustMode: options.trustMode).text + "\n").utf8), to: 1)
        } else {
            Output.error("fwget: (\(failure.exitCode)) \(failure.message)")
        }
        if options.verbose, let reason = failure.tlsReason {
            Output.error("* TLS failed (\(options.trustMode) trust): \(reason)")
        }
        return failure.exitCode
    }

    // MARK: Setup

    /// The client configuration; nil (the problem printed) for an unreadable CA file or a bad pin.
    private func configuration() -> HTTPClient.Configuration? {
        var configuration = HTTPClient.Configuration(decodesContent: false)
        configuration.redirectPolicy = options.followRedirects ? .follow(max: 50) : .none
        configuration.requestTimeout = options.maxTime.map { .milliseconds(Int64($0 * 1000)) }
        configuration.tls.insecure = options.insecure
        if let path = options.caCertificateFile {
            do throws(TLSError) {
                configuration.tls.trustRoots = try .pemFile(path)
            } catch {
                Output.error("fwget: cannot read CA certificates from \(path): \(error)")
                return nil
            }
        }
        if let pins = options.pins {
            do throws(TrustError) {
                try configuration.tls.pin(pins)
            } catch {
                Output.error("fwget: --pinnedpubkey: \(error.reason)")
                return nil
            }
        }
        if options.verbose, options.url?.lowercased().hasPrefix("https:") == true, !options.insecure {
            Output.error("* " + (options.caCertificateFile.map { "CAfile: \($0)" }
                ?? "trust store: \(SystemTrustStore.current)"))
        }
        return configuration
    }

    /// The request; nil (the problem printed) when a `-d @FILE` cannot be read.
    private func request() -> HTTPClientRequest? {
        var request = HTTPClientRequest(url: options.url ?? "")
        for header in options.headers { request.headers.add(name: header.name, value: header.value) }
        if !options.data.isEmpty {
            var body: [UInt8] = []
            for (index, item) in options.data.enumerated() {
                if index > 0 { body.append(UInt8(ascii: "&")) }
                if item.hasPrefix("@") {
                    guard let bytes = readFile(String(item.dropFirst())) else {
                        Output.error("fwget: cannot read \(item.dropFirst())")
                        return nil
                    }
                    body += bytes
                } else {
                    body += Array(item.utf8)
                }
            }
            request.method = "POST"
            request.body = .bytes(body)
            if !request.headers.contains(name: "Content-Type") {
                request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            }
        }
        if let method = options.method { request.method = method }
        return request
    }
}
