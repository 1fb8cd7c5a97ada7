// HTTPBasicAuthentication.swift
//
// The Basic scheme (RFC 7617): the credentials are "user-id:password" in UTF-8 (what the challenge's
// `charset="UTF-8"` parameter announces; without it UTF-8 is used as well, like every current client),
// base64-encoded. A user-id containing ":" and control characters in either part are invalid (§2) and
// give no answer. A pure function.

import Foundation
import FWTLS

// MARK: - HTTPBasicAuthentication

/// Authorization values of the Basic scheme.
enum HTTPBasicAuthentication {
    /// "Basic <base64(user:password)>", or nil when `user` contains ":" or either contains a control
    /// character.
    static func authorization(user: String, password: String) -> String? {
        let isControl: (Unicode.Scalar) -> Bool = { $0.value < 0x20 || $0.value == 0x7F }
        guard !user.contains(":"), !user.unicodeScalars.contains(where: isControl),
              !password.unicodeScalars.contains(where: isControl)
        else { return nil }
        return "Basic " + Base64.encode(Array("\(user):\(password)".utf8))
    }
}
