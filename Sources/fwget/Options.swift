import FWHTTP

// MARK: - Options

/// fwget's command line: `fwget [-o FILE] [-H 'Name: value']... [-d DATA] [-X METHOD] [-L] [-k]
/// [--cacert FILE] [--pinnedpubkey sha256//B64[;...]] [--max-time S] [--json] [-v] URL`.
struct Options {
    var output: String?
    var headers: [(name: String, value: String)] = []
    var data: [String] = []
    var method: String?
    var followRedirects = false
    var insecure = false
    var caCertificateFile: String?
    var pins: String?
    var maxTime: Double?
    var json = false
    var verbose = false
    var url: String?

    static let usage = """
        usage: fwget [-o FILE] [-H 'Name: value']... [-d DATA] [-X METHOD] [-L] [-k] [--cacert FILE]
                     [--pinnedpubkey sha256//B64[;...]] [--max-time S] [--json] [-v] URL
        """

    /// A usage mistake, with what to say.
    struct UsageError: Error {
        let message: String
    }

    /// Parses the arguments (without the program name).
    init(arguments: [String]) throws(UsageError) {
        var index = 0
        func value(of option: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count else { throw UsageError(message: "option \(option) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "-o", "--output": output = try value(of: argument)
            case "-H", "--header":
                let text = try value(of: argument)
                guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else {
                    throw UsageError(message: "a header is 'Name: value', not \"\(text)\"")
                }
                let name = String(text[..<colon])
                let value = String(text[text.index(after: colon)...].drop(while: { $0 == " " || $0 == "\t" }))
                headers.append((name, value))
            case "-d", "--data": data.append(try value(of: argument))
            case "-X", "--request": method = try value(of: argument)
            case "-L", "--location": followRedirects = true
            case "-k", "--insecure": insecure = true
            case "--cacert": caCertificateFile = try value(of: argument)
            case "--pinnedpubkey": pins = try value(of: argument)
            case "--max-time", "-m":
                let text = try value(of: argument)
                guard let seconds = Double(text), seconds > 0 else {
                    throw UsageError(message: "--max-time needs a number of seconds, not \"\(text)\"")
                }
                maxTime = seconds
            case "--json": json = true
            case "-v", "--verbose": verbose = true
            case "-s", "--silent": break
            case "-h", "--help": throw UsageError(message: "")
            default:
                guard !argument.hasPrefix("-") || argument == "-" else {
                    throw UsageError(message: "unknown option \(argument)")
                }
                guard url == nil else { throw UsageError(message: "fwget fetches one URL") }
                url = argument
            }
            index += 1
        }
        guard url != nil else { throw UsageError(message: "no URL") }
    }

    /// The trust mode named in `--json` ("default", "pinned", "insecure").
    var trustMode: String { pins != nil ? "pinned" : insecure ? "insecure" : "default" }
}
