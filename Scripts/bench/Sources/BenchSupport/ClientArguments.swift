import Foundation

// MARK: - What a client measures

/// How much work one client run does: a fixed number of requests, or requests for a fixed time.
public enum Amount: Equatable, Sendable, CustomStringConvertible {
    /// Exactly this many requests.
    case requests(Int)
    /// New requests are started until this many seconds have passed; the ones in flight then finish.
    case seconds(Double)

    /// Parses `20000` (requests) or `2s` / `2.5s` (seconds); nil for anything else.
    public init?(_ text: String) {
        if text.hasSuffix("s") {
            guard let seconds = Double(text.dropLast()), seconds > 0, seconds.isFinite else { return nil }
            self = .seconds(seconds)
        } else {
            guard let count = Int(text), count > 0 else { return nil }
            self = .requests(count)
        }
    }

    /// The form `init?(_:)` reads.
    public var description: String {
        switch self {
        case .requests(let count): "\(count)"
        case .seconds(let seconds): "\(seconds)s"
        }
    }
}

/// How a client treats each response. A struct with static members: new modes may be added.
public struct Mode: Hashable, Sendable, CustomStringConvertible {
    /// The mode's command-line name.
    public let name: String

    /// Keep-alive GET, the body collected in memory as a completion-handler user receives it.
    public static let get = Mode(name: "get")
    /// Keep-alive GET, the body handed over piece by piece and dropped.
    public static let stream = Mode(name: "stream")
    /// Like `get`, but every request asks for a new TCP connection (`Connection: close`).
    public static let close = Mode(name: "close")
    /// GET with the body streamed to a file (`--file` is where the client leaves it).
    public static let download = Mode(name: "download")
    /// PUT of the file `--file`, streamed from disk; any 2xx status is a success.
    public static let upload = Mode(name: "upload")
    /// No request: the client reports as soon as its arguments are parsed, with its libraries loaded (for
    /// FWNetworking: Foundation and FWNetworking) and nothing run. Its peak RSS is the baseline the memory
    /// rows' growth is measured against (issue 17).
    public static let idle = Mode(name: "idle")

    /// Every mode, in command-line order.
    public static let all: [Mode] = [.get, .stream, .close, .download, .upload, .idle]

    /// True for the modes that need `--file`.
    public var usesFile: Bool { self == .download || self == .upload }

    /// The mode's command-line name.
    public var description: String { name }
}

// MARK: - Command line

/// The command line every client takes:
/// `URL CONCURRENCY AMOUNT MODE [--max-conns N] [--api NAME] [--cacert FILE] [--tls-resumption on|off]
/// [--file PATH] [--busy-poll SECONDS]`.
public struct ClientArguments: Equatable, Sendable {
    /// The URL every request fetches: `http` or `https`, always 127.0.0.1.
    public var url: URL
    /// Requests in flight at once.
    public var concurrency: Int
    /// How many requests, or for how long.
    public var amount: Amount
    /// What happens to each response.
    public var mode: Mode
    /// The per-host connection limit; defaults to `concurrency`, so N allowed means N may be used.
    public var maxConnections: Int
    /// Which of the client's APIs drives the requests (client-specific names; nil: its default).
    public var api: String?
    /// A PEM file of the certificate authorities HTTPS servers are checked against (nil: the system's).
    public var caCertificates: String?
    /// TLS session resumption across new connections: true requires it, false forbids it (every new
    /// connection a full handshake); nil leaves the client's default. A client that cannot do what is
    /// asked reports "n/a" (see `NotApplicable`).
    public var tlsResumption: Bool?
    /// Mode `download`: where the body ends up; mode `upload`: the file sent.
    public var file: String?
    /// bench-fw only: the session's `busyPollInterval` in seconds (nil: the configuration's default; 0: the
    /// session never polls, it sleeps as soon as it has nothing to do). The other clients ignore it.
    public var busyPoll: Double?

    /// The usage line for `client`.
    public static func usage(_ client: String) -> String {
        "usage: \(client) URL CONCURRENCY (REQUESTS | SECONDSs) (get|stream|close|download|upload) [--max-conns N] "
            + "[--api NAME] [--cacert FILE] [--tls-resumption on|off] [--file PATH] [--busy-poll SECONDS]"
    }

    /// Parses the arguments after the program name; the error says which one is wrong.
    public init(_ arguments: [String]) throws(UsageError) {
        var positional: [String] = []
        var options: [String: String] = [:]
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if Self.options.contains(argument) {
                guard index + 1 < arguments.count else { throw UsageError("\(argument) needs a value") }
                options[argument] = arguments[index + 1]
                index += 2
            } else {
                positional.append(argument)
                index += 1
            }
        }
        guard positional.count == 4 else { throw UsageError("expected 4 positional arguments") }
        guard let url = URL(string: positional[0]), url.scheme == "http" || url.scheme == "https",
              url.host == "127.0.0.1" else {
            throw UsageError("the URL must be http(s)://127.0.0.1:PORT/...: \(positional[0])")
        }
        guard let concurrency = Int(positional[1]), concurrency > 0 else {
            throw UsageError("bad concurrency \(positional[1])")
        }
        guard let amount = Amount(positional[2]) else { throw UsageError("bad amount \(positional[2])") }
        guard let mode = Mode.all.first(where: { $0.name == positional[3] }) else {
            throw UsageError("bad mode \(positional[3])")
        }
        self.url = url
        self.concurrency = concurrency
        self.amount = amount
        self.mode = mode
        self.maxConnections = concurrency
        if let value = options["--max-conns"] {
            guard let limit = Int(value), limit > 0 else { throw UsageError("bad --max-conns \(value)") }
            maxConnections = limit
        }
        self.api = options["--api"]
        self.caCertificates = options["--cacert"]
        switch options["--tls-resumption"] {
        case nil: tlsResumption = nil
        case "on": tlsResumption = true
        case "off": tlsResumption = false
        case let value?: throw UsageError("--tls-resumption takes on or off, not \(value)")
        }
        self.file = options["--file"]
        if let value = options["--busy-poll"] {
            guard let seconds = Double(value), seconds >= 0 else { throw UsageError("bad --busy-poll \(value)") }
            busyPoll = seconds
        }
        guard mode.usesFile == (file != nil) else {
            throw UsageError(mode.usesFile ? "mode \(mode) needs --file" : "--file is only for download and upload")
        }
    }

    /// The options that take a value.
    private static let options: Set<String> = ["--max-conns", "--api", "--cacert", "--tls-resumption", "--file", "--busy-poll"]

    /// Parses the process's arguments, or prints the problem and the usage line and exits with status 2.
    public static func parseOrExit(client: String) -> ClientArguments {
        do {
            return try ClientArguments(Array(CommandLine.arguments.dropFirst()))
        } catch {
            FileHandle.standardError.write(Data("\(client): \(error.message)\n\(usage(client))\n".utf8))
            exit(2)
        }
    }
}

/// A command line that cannot be run.
public struct UsageError: Error, Equatable {
    /// What is wrong.
    public let message: String

    /// Creates the error.
    public init(_ message: String) {
        self.message = message
    }
}
