// URLCredentialStorage+Persistence.swift
//
// The file of a persistent credential storage: versioned JSON,
// `{"version": 1, "credentials": [record, ...]}`, created with mode 0600 (only its user can read it) and
// replaced atomically. It holds `.permanent` user-and-password credentials only; identities and server
// trusts are never written. Reading is forgiving: no file is an empty storage; a file that cannot be read
// or decoded is an empty storage and one line on standard error; records that make no credential are
// skipped with one line for all of them.

import Foundation

// MARK: - File format

/// The JSON form of a credential storage's file.
struct CredentialFile: Codable, Sendable {
    /// The format's version.
    static let currentVersion = 1

    /// One credential and its protection space.
    struct Record: Codable, Sendable {
        var host: String
        var port: Int
        var `protocol`: String?
        var realm: String?
        var authenticationMethod: String
        var isProxy: Bool
        var proxyType: String?
        var user: String
        var password: String
        /// Listed under its user in the space.
        var listed: Bool
        /// The space's default credential.
        var isDefault: Bool
    }

    var version: Int
    var credentials: [Record]
}

extension CredentialFile.Record {
    /// The record of a written entry, nil when the credential has no user or password.
    init?(_ entry: CredentialTable.Entry) {
        guard let user = entry.credential.user, let password = entry.credential.password else { return nil }
        let space = entry.space
        self.init(host: space.host, port: space.port, protocol: space.protocol, realm: space.realm,
                  authenticationMethod: space.authenticationMethod, isProxy: space.isProxy(),
                  proxyType: space.proxyType, user: user, password: password, listed: entry.listed,
                  isDefault: entry.isDefault)
    }

    /// The entry the record describes, nil when it describes none (no host, or neither listed nor default).
    var entry: CredentialTable.Entry? {
        guard !host.isEmpty, (0...65_535).contains(port), listed || isDefault else { return nil }
        let space = isProxy
            ? URLProtectionSpace(proxyHost: host, port: port, type: proxyType, realm: realm,
                                 authenticationMethod: authenticationMethod)
            : URLProtectionSpace(host: host, port: port, protocol: self.protocol, realm: realm,
                                 authenticationMethod: authenticationMethod)
        let credential = URLCredential(user: user, password: password, persistence: .permanent)
        return CredentialTable.Entry(space: space, credential: credential, listed: listed, isDefault: isDefault)
    }
}

// MARK: - Loading and saving

extension URLCredentialStorage {
    /// The entries in `file`; none (and a log line) when it cannot be read or decoded.
    static func load(from file: PersistentFile) -> [CredentialTable.Entry] {
        let decoded: CredentialFile
        do {
            guard let data = try file.read() else { return [] }
            decoded = try JSONDecoder().decode(CredentialFile.self, from: data)
            guard decoded.version == CredentialFile.currentVersion else {
                throw PersistentFileFormatError(description: "unknown format version \(decoded.version)")
            }
        } catch {
            file.log("cannot read the credentials in \(file.path) (\(error)); starting with no credentials")
            return []
        }
        let entries = decoded.credentials.compactMap(\.entry)
        if entries.count < decoded.credentials.count {
            file.log("skipped \(decoded.credentials.count - entries.count) invalid credential records in \(file.path)")
        }
        return entries
    }

    /// Writes `entries` to `file` as generation `generation`; a failure to encode is logged.
    static func save(_ entries: [CredentialTable.Entry], to file: PersistentFile, generation: UInt64) {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let records = entries.compactMap(CredentialFile.Record.init)
            let data = try encoder.encode(CredentialFile(version: CredentialFile.currentVersion, credentials: records))
            file.write(data, generation: generation)
        } catch {
            file.log("cannot encode the credentials for \(file.path): \(error)")
        }
    }
}
