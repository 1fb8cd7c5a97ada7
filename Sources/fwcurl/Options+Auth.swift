import Foundation
import FWNetworking

// MARK: - Authentication options
//
// curl's server authentication flags:
//
//   -u USER:PASSWORD  the credentials for every URL ("USER:" is an empty password; fwcurl does not prompt,
//                     so a USER without ":" is a usage error); they go only to the hosts of the URLs and
//                     of same-origin redirects (the session drops Authorization on a hop to another origin)
//   --basic           (the default) Basic, sent with the first request, before any challenge
//   --digest          Digest: the first request goes without credentials and a Digest challenge is answered
//   --anyauth         the first request goes without credentials and the strongest scheme the 401 offers
//                     is answered (Digest, then Basic)
//
// The last of --basic, --digest and --anyauth wins; --proxy-basic, --proxy-digest and --proxy-anyauth do the
// same for the proxy's credentials (-U, see Options+Proxy.swift). A refused credential is not offered again: the 401 is
// the response (exit 22 with -f, its body written otherwise).

extension Options {
    /// Parses an authentication flag into `user`, `authScheme` or `proxyAuthScheme`; false when `argument`
    /// is none of them.
    mutating func parseAuth(_ argument: String, value: (String) throws(UsageError) -> String)
        throws(UsageError) -> Bool {
        switch argument {
        case "-u", "--user":
            let text = try value(argument)
            guard text.contains(":") else {
                throw UsageError(description: "-u takes USER:PASSWORD (USER: for an empty password); "
                    + "fwcurl does not prompt for a password")
            }
            user = text
        case "--basic":
            authScheme = .basic
        case "--digest":
            authScheme = .digest
        case "--anyauth":
            authScheme = .any
        case "--proxy-basic":
            proxyAuthScheme = .basic
        case "--proxy-digest":
            proxyAuthScheme = .digest
        case "--proxy-anyauth":
            proxyAuthScheme = .any
        default:
            return false
        }
        return true
    }

    /// The answers `-u` and the scheme flags give to 401 challenges; nil without `-u`.
    var authentication: HTTPAuthPolicy? {
        guard let user else { return nil }
        let parts = user.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        return HTTPAuthPolicy(user: String(parts[0]), password: parts.count > 1 ? String(parts[1]) : "",
                              scheme: authScheme)
    }
}
