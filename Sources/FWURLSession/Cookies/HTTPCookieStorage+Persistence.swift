// HTTPCookieStorage+Persistence.swift
//
// The file of a persistent cookie storage: versioned JSON, `{"version": 1, "cookies": [record, ...]}`,
// oldest cookie first, created with mode 0600 (cookies are credentials) and replaced atomically. Only
// cookies that are neither session-only nor expired are written. Reading is forgiving: no file is an
// empty storage; a file that cannot be read or decoded (truncated, garbage, wrong types, another version)
// is an empty storage and one line on standard error; records that do not make a cookie (an empty name,
// a path not starting with "/") are skipped with one line for all of them. The storage then overwrites
// the file at its next change.

import Foundation

// MARK: - File format

/// The JSON form of a cookie storage's file.
struct CookieFile: Codable, Sendable {
    /// The format's version.
    static let currentVersion = 1

    /// One cookie.
    struct Record: Codable, Sendable {
        var name: String
        var value: String
        var domain: String
        var path: String
        /// Seconds since 1970.
        var expires: Double
        /// Seconds since 1970.
        var created: Double
        var secure: Bool
        var httpOnly: Bool
        var sameSite: String?
        var version: Int
        var comment: String?
        var commentURL: String?
        var ports: [Int]?
        var originURL: String?
    }

    var version: Int
    var cookies: [Record]
}

extension CookieFile.Record {
    /// The record of `cookie`, which has an expiry date.
    init(_ cookie: HTTPCookie, expires: Date) {
        let fields = cookie.fields
        self.init(
            name: fields.name, value: fields.value, domain: fields.domain, path: fields.path,
            expires: expires.timeIntervalSince1970, created: fields.creationDate.timeIntervalSince1970,
            secure: fields.isSecure, httpOnly: fields.isHTTPOnly, sameSite: fields.sameSitePolicy?.rawValue,
            version: fields.version, comment: fields.comment, commentURL: fields.commentURL?.absoluteString,
            ports: fields.portList, originURL: fields.originURL?.absoluteString
        )
    }

    /// The cookie the record describes, or nil when it describes none.
    var cookie: HTTPCookie? {
        guard !name.isEmpty, !domain.isEmpty, domain != ".", path.hasPrefix("/"), expires.isFinite, created.isFinite
        else { return nil }
        return HTTPCookie(fields: HTTPCookie.Fields(
            name: name, value: value, domain: domain.lowercased(), path: path,
            expiresDate: Date(timeIntervalSince1970: expires), isSessionOnly: false, isSecure: secure,
            isHTTPOnly: httpOnly, comment: comment, commentURL: commentURL.flatMap(URL.init(string:)),
            portList: ports?.isEmpty == true ? nil : ports, version: version == 1 ? 1 : 0,
            sameSitePolicy: sameSite.flatMap(HTTPCookieStringPolicy.init(attributeValue:)),
            creationDate: Date(timeIntervalSince1970: created), originURL: originURL.flatMap(URL.init(string:))
        ))
    }
}

// MARK: - Loading and saving

extension HTTPCookieStorage {
    /// The file `name` in FWNetworking's data directory, mode 0600; nil without a home directory.
    static func persistentFile(named name: String) -> PersistentFile? {
        PersistentFile.dataDirectory().map { PersistentFile(path: $0 + "/" + name, mode: 0o600) }
    }

    /// The cookies in `file`, oldest first; none (and a log line) when it cannot be read or decoded.
    static func load(from file: PersistentFile) -> [HTTPCookie] {
        let decoded: CookieFile
        do {
            guard let data = try file.read() else { return [] }
            decoded = try JSONDecoder().decode(CookieFile.self, from: data)
            guard decoded.version == CookieFile.currentVersion else {
                throw PersistentFileFormatError(description: "unknown format version \(decoded.version)")
            }
        } catch {
            file.log("cannot read the cookies in \(file.path) (\(error)); starting with no cookies")
            return []
        }
        let cookies = decoded.cookies.compactMap(\.cookie)
        if cookies.count < decoded.cookies.count {
            file.log("skipped \(decoded.cookies.count - cookies.count) invalid cookie records in \(file.path)")
        }
        return cookies
    }

    /// Writes `cookies` to `file` as generation `generation`; a failure to encode is logged.
    static func save(_ cookies: [HTTPCookie], to file: PersistentFile, generation: UInt64) {
        let records = cookies.compactMap { cookie in cookie.expiresDate.map { CookieFile.Record(cookie, expires: $0) } }
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let data = try encoder.encode(CookieFile(version: CookieFile.currentVersion, cookies: records))
            file.write(data, generation: generation)
        } catch {
            file.log("cannot encode the cookies for \(file.path): \(error)")
        }
    }
}
