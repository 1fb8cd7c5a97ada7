// The default Accept-Language and User-Agent of a new serializer.
//
// Accept-Language: AFNetworking lists the system's preferred languages with falling q-values (1, 0.9,
// ... down to 0.5, so at most six). On Linux, Foundation's `Locale.preferredLanguages` ignores the
// environment, so the languages come from the POSIX locale settings the way gettext reads them:
// `LANGUAGE` (a colon-separated list, used unless the locale is C/POSIX), else the first of `LC_ALL`,
// `LC_MESSAGES`, `LANG`; `en_US.UTF-8` becomes `en-US`. With none (or only C/POSIX) it is `en`.
//
// User-Agent: the port sends `App/Version (bundle; device; iOS x) FWFramework/x`. Here it is
// `PROGRAM (Linux RELEASE; MACHINE) FWNetworking/VERSION`, from the process name and uname(2), reduced
// to the characters a header value allows.

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - Defaults

extension HTTPRequestSerializer {
    /// The FWNetworking version the default User-Agent names.
    static let frameworkVersion = "0.1"

    /// The Accept-Language value for the process's environment.
    static func defaultAcceptLanguage(environment: [String: String] = ProcessInfo.processInfo.environment)
        -> String {
        let languages = preferredLanguages(environment: environment)
        return languages.prefix(6).enumerated().map { index, language in
            "\(language);q=\(index == 0 ? "1" : "0.\(10 - index)")"
        }.joined(separator: ", ")
    }

    /// The user's languages as BCP 47 tags, most preferred first; `["en"]` when none is set.
    static func preferredLanguages(environment: [String: String]) -> [String] {
        let locale = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        let isPOSIX = locale.map { languageTag($0) == nil } ?? true
        var candidates: [String] = []
        if !isPOSIX, let list = environment["LANGUAGE"] {
            candidates = list.split(separator: ":").map(String.init)
        }
        if candidates.isEmpty, let locale { candidates = [locale] }
        var tags: [String] = []
        for tag in candidates.compactMap(languageTag) where !tags.contains(tag) { tags.append(tag) }
        return tags.isEmpty ? ["en"] : tags
    }

    /// `ll_CC.codeset@modifier` as `ll-CC`; nil for C, POSIX and anything that is not a language.
    private static func languageTag(_ locale: String) -> String? {
        let name = locale.prefix { $0 != "." && $0 != "@" }
        guard name != "C", name != "POSIX", !name.isEmpty,
              name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }) else {
            return nil
        }
        return name.replacingOccurrences(of: "_", with: "-")
    }

    /// `PROGRAM (Linux RELEASE; MACHINE) FWNetworking/VERSION`: the program name reduced to token
    /// characters (RFC 9110), the comment to visible ASCII without parentheses.
    static func defaultUserAgent() -> String {
        var system = utsname()
        uname(&system)
        let release = withUnsafeBytes(of: &system.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let machine = withUnsafeBytes(of: &system.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let token = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        let program = ProcessInfo.processInfo.processName.filter(token.contains)
        let comment = String(String.UnicodeScalarView("Linux \(release); \(machine)".unicodeScalars.filter {
            (0x20...0x7E).contains($0.value) && $0 != "(" && $0 != ")"
        }))
        return "\(program.isEmpty ? "FWNetworking" : program) (\(comment)) FWNetworking/\(frameworkVersion)"
    }
}
