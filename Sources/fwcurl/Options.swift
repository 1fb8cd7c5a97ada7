import Foundation
import FWNetworking

// MARK: - Options

/// The command line of a fetch (see `usage`): the request, where each body goes, the transfer flags,
/// the TLS options, then `URL [URL...]`.
struct Options {
    var method: String?
    var headers: [(name: String, value: String)] = []
    var body: Data?
    /// `-T FILE`: the file uploaded (PUT unless `-X`) to every URL.
    var uploadFile: String?
    /// `-F`, in order: the parts of a multipart/form-data body (POST unless `-X`).
    var formFields: [FormField] = []
    /// `-o FILE`, once per URL in order; URLs without one write to stdout.
    var outputFiles: [String] = []
    /// `-C -` or `-C OFFSET`.
    var resume: ResumePoint?
    var followRedirects = false
    /// `--max-redirs`: how many redirects `-L` follows; -1 for no limit of fwcurl's own.
    var maxRedirects = 50
    var compressed = false
    var silent = false
    var includeHeaders = false
    var verbose = false
    var maxTime: Double?
    /// `-f`: an HTTP status of 400 or more is a failure (exit 22), and its body is not written.
    var fail = false
    /// `--max-filesize`: a body larger than this many bytes is a failure (exit 63).
    var maxFileSize: Int64?
    var json = false
    var traceFile: String?
    var caCertificateFile: String?
    var insecure = false
    var pinnedPublicKeys: [String]?
    var tlsMinimum: tls_protocol_version_t?
    var showChain = false
    /// `--cert FILE[:PASSWORD]`: a PEM certificate (chain) or a PKCS#12 (.p12, .pfx) file.
    var certificateFile: String?
    var certificatePassword: String?
    /// `--key FILE`: the PEM private key (default: the `--cert` file).
    var keyFile: String?
    /// `--retry`, `--retry-delay`, `--retry-max-time`, `--retry-all-errors`.
    var retry = RetryOptions()
    /// `--pin-report-only`, `--pin-report`, `--show-pins`, `--crlfile`, `--cert-status`, `--require-ct`
    /// (Options+Pinning.swift).
    var pinning = PinningOptions()
    /// `-b`, `-c`, `-j` (Options+Cookies.swift).
    var cookies = CookieOptions()
    /// `--strict`, `--request-raw`, `--trace-json` (Options+Conformance.swift).
    var conformance = ConformanceOptions()
    /// `--pipeline` (Options+Pipelining.swift).
    var pipeline = PipelineOptions()
    /// `--background ID`: the durable session the downloads run in (Options+Background.swift).
    var background: String?
    /// `-u USER:PASSWORD` (Options+Auth.swift).
    var user: String?
    /// `--basic` (the default), `--digest`, `--anyauth`.
    var authScheme = HTTPAuthPolicy.Scheme.basic
    /// `--proxy-basic` (the default), `--proxy-digest`, `--proxy-anyauth`.
    var proxyAuthScheme = HTTPAuthPolicy.Scheme.basic
    var urls: [URL] = []

    // MARK: Proxies (Options+Proxy.swift)

    /// `-x URL`: the proxy of every URL ("" for none, whatever the environment says).
    var proxy: String?
    /// `-U, --proxy-user USER:PASSWORD`.
    var proxyUser: String?
    /// `--noproxy LIST`: hosts that go direct (no_proxy syntax).
    var noProxy: String?

    /// Where `-C` continues from.
    enum ResumePoint {
        /// `-C -`: from the output file's current size.
        case outputSize
        /// `-C OFFSET`.
        case offset(Int64)
    }

    /// A command-line mistake, reported with the usage text.
    struct UsageError: Error, CustomStringConvertible {
        var description: String
    }

    static let usage = """
        usage: fwcurl [-X METHOD] [-H 'Name: value']... [-d DATA|@FILE] [-T FILE] [-F name=CONTENT]...
                      [-o FILE]... [-C -|OFFSET] [-L] [--max-redirs N] [--compressed] [-i] [-v] [-s]
                      [--max-time SECONDS] [-f] [--max-filesize BYTES] [--json] [--trace-ascii FILE|-]
                      [--cacert FILE] [-k]
                      [--pinnedpubkey sha256//BASE64[;...]] [--pin-report-only] [--pin-report FILE|-]
                      [--show-pins] [--crlfile FILE] [--crl-fetch|--crl-fetch-hard-fail [--crl-max-size N]]
                      [--cert-status]
                      [[--require-ct] --ct-log-list FILE [--ct-min-logs N]] [--tls-min 1.2|1.3] [--show-chain]
                      [--cert FILE[:PASSWORD]] [--key FILE] [-x URL] [-U USER:PASSWORD] [--noproxy LIST]
                      [--retry N] [--retry-delay SECONDS] [--retry-max-time SECONDS] [--retry-all-errors]
                      [--background ID]
                      [-b NAME=VALUE|FILE]... [-c FILE] [-j] [-u USER:PASSWORD] [--basic|--digest|--anyauth]
                      [--proxy-basic|--proxy-digest|--proxy-anyauth] [--strict] [--request-raw FILE]
                      [--trace-json FILE|-] [--pipeline] URL [URL...]
               fwcurl demo

          -F name=value    a multipart/form-data field (POST unless -X); one part per -F, in order
          -F name=@FILE    FILE as a file part, streamed from disk; ;type=MIME and ;filename=NAME may follow
          -F name=<FILE    a field whose value is FILE's content
          -o FILE          write the body into FILE as it arrives (opened in place: /dev/null, FIFOs work);
                           one -o per URL, in order; the other URLs write to stdout
          -T FILE          upload FILE, streamed from disk, with PUT unless -X; a URL ending in / gets the
                           file's name appended
          -C -             continue -o FILE from its current size (Range: bytes=SIZE-); -C OFFSET asks from
                           byte OFFSET and appends; a server that ignores the range starts the file over
          -L               follow redirects (by default the 3xx response is the result)
          --max-redirs N   with -L, fail after N redirects (default 50; -1: no limit of fwcurl's own)
          --compressed     ask for gzip, deflate or br and decode it (else Accept-Encoding: identity is sent)
          -s               no progress meter (shown on a terminal for -o and -T); errors are still printed
          -x URL           use this proxy: http://HOST[:PORT] (CONNECT tunnels for https), socks5:// (names
                           resolved here) or socks5h:// (by the proxy); port 1080 by default; USER:PASSWORD@
                           may precede the host; "" for none. Without -x: http_proxy, https_proxy, all_proxy
          -U USER:PASSWORD the proxy's credentials (--proxy-user), with -x; sent with Basic (--proxy-basic,
                           the default), or answering the proxy's Digest challenge (--proxy-digest) or the
                           strongest scheme its 407 offers (--proxy-anyauth)
          --noproxy LIST   hosts that go direct: names (suffixes), addresses, CIDR ranges, :PORT, or *
          --retry N        retry a timeout or an HTTP 408, 429, 500, 502, 503, 504, 522, 524 up to N times,
                           waiting 1 s, then doubling (a 429/503 Retry-After wins); -v tells the attempts
          --retry-delay S  wait S seconds between retries instead
          --retry-max-time S  start no retry after S seconds
          --retry-all-errors  retry every failure, not only the transient ones
          --background ID  download every URL (one -o FILE each) in the durable session ID: a killed run
                           is finished by running the same command again, fetching only what is missing
          -b NAME=VALUE    send this Cookie string with every request (several -b are joined with "; ")
          -b FILE          read cookies from FILE (Netscape cookie-jar format or Set-Cookie: lines) and keep
                           the cookies responses set for the requests that follow (redirects, later URLs)
          -c FILE          keep cookies as -b FILE does and write them all into FILE at exit, in the
                           Netscape format curl writes ("-" for stdout)
          -j               leave out the session cookies (no expiry) of the -b files: a new session
          -u USER:PASSWORD the server's credentials (USER: for an empty password; no prompt)
          --basic          send them with Basic before any challenge (the default with -u)
          --digest         answer a Digest challenge with them (the first request goes without)
          --anyauth        answer the strongest scheme a 401 offers with them (Digest, then Basic)
          --pinnedpubkey P the leaf's key must match one of the pins (exit 90 otherwise)
          --pin-report-only  with --pinnedpubkey: report a mismatch, do not refuse (exit 0)
          --pin-report FILE  write each pin violation report (RFC 7469 JSON) as one line to FILE ("-": stdout)
          --show-pins      print every certificate of the served chain with its subject and SPKI pin
          --crlfile FILE   check the leaf against the CRLs in FILE (PEM or DER); revoked: exit 60
          --crl-fetch      fetch the CRLs the leaf names (http:// distribution points, size-bounded,
                           through the http proxy); revoked: exit 60; a failed fetch warns and goes on
          --crl-fetch-hard-fail  --crl-fetch, and a leaf no fetched list covers fails (exit 60)
          --crl-max-size N the largest CRL --crl-fetch accepts (k, M suffixes; default 1M)
          --cert-status    require a good stapled OCSP response (missing, bad or revoked: exit 91)
          --ct-log-list F  ask for SCTs, validate them against the CT log list F (OpenSSL's format);
                           --json's tls.ct says what was found
          --require-ct     require valid SCTs from --ct-min-logs N (default 2) distinct logs of the
                           --ct-log-list; fewer: exit 60
          -f, --fail       an HTTP status of 400 or more fails (exit 22) and writes no body
          --max-filesize N fail (exit 63) when the body is larger than N bytes (k, M, G suffixes), known
                           from Content-Length before the transfer, or while it runs
        \(ConformanceOptions.usage)
        \(PipelineOptions.usage)
        ws:// and wss:// URLs open a WebSocket: each line of standard input is sent as a text message, every
        message that arrives is printed (--json: one JSON object per message, with its type), and the end of
        standard input closes the connection with 1000
        exit status: curl's (6 host not found, 7 cannot connect, 28 timeout, 35 TLS handshake, 47 redirects,
                     60 untrusted or revoked certificate, 90 pin mismatch, 91 --cert-status, 22 with -f,
                     63 --max-filesize, ...)
        """

    /// Parses `arguments` (without the program name).
    init(arguments: [String]) throws(UsageError) {
        var rest = arguments[...]
        func value(for flag: String) throws(UsageError) -> String {
            guard let next = rest.popFirst() else { throw UsageError(description: "\(flag) needs a value") }
            return next
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "-X", "--request":
                method = try value(for: argument)
            case "-H", "--header":
                headers.append(try Self.header(try value(for: argument)))
            case "-d", "--data":
                body = try Self.loadData(try value(for: argument))
            case "-T", "--upload-file":
                uploadFile = try value(for: argument)
            case "-F", "--form":
                formFields.append(try FormField(argument: try value(for: argument)))
            case "-o", "--output":
                outputFiles.append(try value(for: argument))
            case "-C", "--continue-at":
                resume = try Self.resumePoint(try value(for: argument))
            case "-L", "--location":
                followRedirects = true
            case "--max-redirs":
                let text = try value(for: argument)
                guard let count = Int(text), count >= -1 else {
                    throw UsageError(description: "--max-redirs needs a number (-1 for no limit), not '\(text)'")
                }
                maxRedirects = count
            case "--compressed":
                compressed = true
            case "-s", "--silent":
                silent = true
            case "-i", "--include":
                includeHeaders = true
            case "-v", "--verbose":
                verbose = true
            case "--max-time", "-m":
                let text = try value(for: argument)
                guard let seconds = Double(text), seconds > 0 else {
                    throw UsageError(description: "--max-time needs a positive number of seconds, not '\(text)'")
                }
                maxTime = seconds
            case "-f", "--fail":
                fail = true
            case "--max-filesize":
                maxFileSize = try Self.byteCount(try value(for: argument), for: argument)
            case "--json":
                json = true
            case "--trace-ascii":
                traceFile = try value(for: argument)
            case "-x", "--proxy":
                proxy = try value(for: argument)
            case "-U", "--proxy-user":
                proxyUser = try value(for: argument)
            case "--noproxy":
                noProxy = try value(for: argument)
            default:
                if try parseRetry(argument, value: value) { continue }
                if try parseBackground(argument, value: value) { continue }
                if try parseCookies(argument, value: value) { continue }
                if try parseConformance(argument, value: value) { continue }
                if parsePipelining(argument) { continue }
                if try parseAuth(argument, value: value) { continue }
                if try parsePinning(argument, value: value) { continue }
                try parseTLSOrURL(argument, value: value)
            }
        }
        try validate()
    }

    /// The TLS flags, and the URLs (anything else that does not start with `-`).
    private mutating func parseTLSOrURL(_ argument: String, value: (String) throws(UsageError) -> String)
        throws(UsageError) {
        switch argument {
        case "--cacert":
            caCertificateFile = try value(argument)
        case "-k", "--insecure":
            insecure = true
        case "--pinnedpubkey":
            let pins = try value(argument).split(separator: ";").map { String($0) }
            guard !pins.isEmpty, pins.allSatisfy({ $0.hasPrefix("sha256//") }) else {
                throw UsageError(description: "--pinnedpubkey takes sha256//BASE64[;sha256//BASE64...]")
            }
            pinnedPublicKeys = pins
        case "--tls-min":
            switch try value(argument) {
            case "1.2": tlsMinimum = .TLSv12
            case "1.3": tlsMinimum = .TLSv13
            case let other: throw UsageError(description: "--tls-min takes 1.2 or 1.3, not \(other)")
            }
        case "--show-chain":
            showChain = true
        case "-E", "--cert":
            (certificateFile, certificatePassword) = Self.splitPassword(try value(argument))
        case "--key":
            keyFile = try value(argument)
        case let flag where flag.hasPrefix("-") && flag.count > 1:
            throw UsageError(description: "unknown option \(flag)")
        default:
            guard let url = URL(string: argument), url.scheme != nil else {
                throw UsageError(description: "'\(argument)' is not a URL")
            }
            urls.append(url)
        }
    }

    /// Combinations the flags cannot express.
    private func validate() throws(UsageError) {
        if urls.isEmpty { throw UsageError(description: "no URL given") }
        try validatePinning()
        try validatePipelining()
        if proxyUser != nil, proxy?.isEmpty ?? true { throw UsageError(description: "--proxy-user needs -x") }
        _ = try proxyDictionary()
        if keyFile != nil, certificateFile == nil { throw UsageError(description: "--key needs --cert") }
        if outputFiles.count > urls.count { throw UsageError(description: "more -o options than URLs") }
        if resume != nil, outputFiles.count < urls.count {
            throw UsageError(description: "-C needs an -o FILE for every URL (it continues that file)")
        }
        if !formFields.isEmpty, body != nil || uploadFile != nil {
            throw UsageError(description: "-F cannot be used with -d or -T")
        }
        if let uploadFile {
            if body != nil { throw UsageError(description: "-T and -d cannot be used together") }
            var info = stat()
            guard stat(uploadFile, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG,
                  FileManager.default.isReadableFile(atPath: uploadFile) else {
                throw UsageError(description: "-T: cannot read \(uploadFile) (it must be a readable file)")
            }
        }
    }

    // MARK: Values

    /// `Name: value` of `-H`.
    private static func header(_ field: String) throws(UsageError) -> (name: String, value: String) {
        guard let colon = field.firstIndex(of: ":") else {
            throw UsageError(description: "header '\(field)' has no colon")
        }
        let value = field[field.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        return (name: String(field[..<colon]), value: value)
    }

    /// A byte count with an optional k, M or G suffix (powers of 1024), as curl reads `--max-filesize`.
    private static func byteCount(_ text: String, for flag: String) throws(UsageError) -> Int64 {
        let scales: [Character: Int64] = ["k": 1 << 10, "K": 1 << 10, "m": 1 << 20, "M": 1 << 20,
                                          "g": 1 << 30, "G": 1 << 30]
        let scale = text.last.flatMap { scales[$0] }
        let digits = scale == nil ? Substring(text) : text.dropLast()
        guard let count = Int64(digits), count >= 0,
              case let (bytes, overflow) = count.multipliedReportingOverflow(by: scale ?? 1), !overflow else {
            throw UsageError(description: "\(flag) needs a number of bytes (k, M, G suffixes), not '\(text)'")
        }
        return bytes
    }

    /// `-C`'s value: `-` or a byte offset.
    private static func resumePoint(_ text: String) throws(UsageError) -> ResumePoint {
        if text == "-" { return .outputSize }
        guard let offset = Int64(text), offset >= 0 else {
            throw UsageError(description: "-C takes - or a byte offset, not '\(text)'")
        }
        return .offset(offset)
    }

    /// curl's `FILE:PASSWORD`: a path that exists is taken whole; otherwise the text after the last
    /// colon is the password.
    private static func splitPassword(_ argument: String) -> (file: String, password: String?) {
        guard !FileManager.default.fileExists(atPath: argument), let colon = argument.lastIndex(of: ":") else {
            return (argument, nil)
        }
        return (String(argument[..<colon]), String(argument[argument.index(after: colon)...]))
    }

    /// `-d` text, or the contents of a file for `@FILE`.
    private static func loadData(_ argument: String) throws(UsageError) -> Data {
        guard argument.hasPrefix("@") else { return Data(argument.utf8) }
        let path = String(argument.dropFirst())
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError(description: "cannot read \(path)")
        }
        return data
    }
}
