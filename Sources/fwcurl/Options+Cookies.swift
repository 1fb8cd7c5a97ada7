import Foundation
import FWNetworking

// MARK: - Cookie options
//
// curl's cookie flags, with curl's meaning:
//
//   -b NAME=VALUE[; N2=V2]  an argument with "=" is sent as given in the Cookie field of every request
//                           (several -b strings are joined with "; "; a redirect to another origin drops
//                           it, as the session drops every Cookie field there); the cookie engine stays off
//   -b FILE, -b @FILE       read cookies from FILE (Netscape cookie-jar format or Set-Cookie lines, see
//                           `NetscapeCookieFile`) and turn the cookie engine on; a missing FILE is only
//                           mentioned with -v, as curl does
//   -c FILE                 turn the cookie engine on and write every cookie it holds at exit, in the
//                           Netscape format curl writes ("-" for stdout)
//   -j                      leave out the session cookies (no expiry) of the -b files, as a new session
//
// The cookie engine is the session's cookie storage (an ephemeral configuration's, in memory): cookies set
// by responses are sent with the requests that follow, redirects and later URLs of the run included.

/// What `-b`, `-c` and `-j` ask for.
struct CookieOptions: Sendable {
    /// `-b NAME=VALUE`: the strings sent as given with every request, in order.
    var pairs: [String] = []
    /// `-b FILE`: the files cookies are read from, in order.
    var files: [String] = []
    /// `-c FILE`: where the cookies are written at exit ("-" for stdout).
    var jar: String?
    /// `-j`: the files' session cookies are left out.
    var junkSessionCookies = false

    /// True when the session keeps cookies: with a `-b FILE` or a `-c FILE`.
    var engineEnabled: Bool { !files.isEmpty || jar != nil }

    /// The value of the Cookie field the `-b NAME=VALUE` strings make, nil without one.
    var fieldValue: String? { pairs.isEmpty ? nil : pairs.joined(separator: "; ") }

    /// The cookies of the `-b` files (read now, in order); the `-v` lines tell about files that could
    /// not be read.
    func load(verbose: Bool) -> NetscapeCookieFile.Contents {
        var contents = NetscapeCookieFile.Contents()
        for path in files {
            guard let data = FileManager.default.contents(atPath: path) else {
                if verbose { Terminal.error("* WARNING: failed to open cookie file \"\(path)\"") }
                continue
            }
            let text = String(decoding: data, as: UTF8.self)
            contents.append(NetscapeCookieFile.parse(text, junkSessionCookies: junkSessionCookies, now: Date()))
        }
        return contents
    }

    /// Writes the cookies of `storage` to the `-c` file (nothing without `-c`); a file that cannot be
    /// written is a warning, as with curl, not a failure of the run.
    func writeJar(from storage: HTTPCookieStorage?) {
        guard let jar else { return }
        let text = NetscapeCookieFile.format(storage?.cookies ?? [])
        if jar == "-" {
            Terminal.output(Data(text.utf8))
            return
        }
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: jar), options: .atomic)
        } catch {
            Terminal.error("fwcurl: WARNING: failed to save cookies in \(jar): \(error.localizedDescription)")
        }
    }
}

extension Options {
    /// Parses a cookie flag into `cookies`; false when `argument` is none of them.
    mutating func parseCookies(_ argument: String, value: (String) throws(UsageError) -> String)
        throws(UsageError) -> Bool {
        switch argument {
        case "-b", "--cookie":
            let text = try value(argument)
            if text.hasPrefix("@") {
                cookies.files.append(String(text.dropFirst()))
            } else if text.contains("=") {
                guard !text.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
                    throw UsageError(description: "-b: a cookie string cannot hold CR, LF or NUL")
                }
                cookies.pairs.append(text)
            } else {
                cookies.files.append(text)
            }
        case "-c", "--cookie-jar":
            cookies.jar = try value(argument)
        case "-j", "--junk-session-cookies":
            cookies.junkSessionCookies = true
        default:
            return false
        }
        return true
    }
}
