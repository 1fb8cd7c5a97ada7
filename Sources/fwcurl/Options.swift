import Foundation
import FWNetworking

// MARK: - Options

/// The command line of a fetch: `fwcurl [-X METHOD] [-H 'Name: value']... [-d DATA|@FILE] [-o FILE]
/// [-i] [-v] [--max-time S] [--json] [--trace-ascii FILE|-]`, the TLS options, then `URL [URL...]`.
struct Options {
    var method: String?
    var headers: [(name: String, value: String)] = []
    var body: Data?
    var outputFile: String?
    var includeHeaders = false
    var verbose = false
    var maxTime: Double?
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
    var urls: [URL] = []

    /// A command-line mistake, reported with the usage text.
    struct UsageError: Error, CustomStringConvertible {
        var description: String
    }

    static let usage = """
        usage: fwcurl [-X METHOD] [-H 'Name: value']... [-d DATA|@FILE] [-o FILE] [-i] [-v]
                      [--max-time SECONDS] [--json] [--trace-ascii FILE|-] [--cacert FILE] [-k]
                      [--pinnedpubkey sha256//BASE64[;...]] [--tls-min 1.2|1.3] [--show-chain]
                      [--cert FILE[:PASSWORD]] [--key FILE] URL [URL...]
               fwcurl demo
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
                let field = try value(for: argument)
                guard let colon = field.firstIndex(of: ":") else {
                    throw UsageError(description: "header '\(field)' has no colon")
                }
                let name = String(field[..<colon])
                let value = field[field.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                headers.append((name: name, value: value))
            case "-d", "--data":
                body = try Self.loadData(try value(for: argument))
            case "-o", "--output":
                outputFile = try value(for: argument)
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
            case "--json":
                json = true
            case "--trace-ascii":
                traceFile = try value(for: argument)
            case "--cacert":
                caCertificateFile = try value(for: argument)
            case "-k", "--insecure":
                insecure = true
            case "--pinnedpubkey":
                let pins = try value(for: argument).split(separator: ";").map { String($0) }
                guard !pins.isEmpty, pins.allSatisfy({ $0.hasPrefix("sha256//") }) else {
                    throw UsageError(description: "--pinnedpubkey takes sha256//BASE64[;sha256//BASE64...]")
                }
                pinnedPublicKeys = pins
            case "--tls-min":
                switch try value(for: argument) {
                case "1.2": tlsMinimum = .TLSv12
                case "1.3": tlsMinimum = .TLSv13
                case let other: throw UsageError(description: "--tls-min takes 1.2 or 1.3, not \(other)")
                }
            case "--show-chain":
                showChain = true
            case "-E", "--cert":
                (certificateFile, certificatePassword) = Self.splitPassword(try value(for: argument))
            case "--key":
                keyFile = try value(for: argument)
            case let flag where flag.hasPrefix("-") && flag.count > 1:
                throw UsageError(description: "unknown option \(flag)")
            default:
                guard let url = URL(string: argument), url.scheme != nil else {
                    throw UsageError(description: "'\(argument)' is not a URL")
                }
                urls.append(url)
            }
        }
        if urls.isEmpty { throw UsageError(description: "no URL given") }
        if keyFile != nil, certificateFile == nil { throw UsageError(description: "--key needs --cert") }
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

    /// The request for one URL.
    func request(for url: URL) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = method ?? (body == nil ? "GET" : "POST")
        for header in headers { request.addValue(header.value, forHTTPHeaderField: header.name) }
        if let body {
            request.httpBody = body
            if request.value(forHTTPHeaderField: "Content-Type") == nil {
                request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            }
        }
        return request
    }
}
