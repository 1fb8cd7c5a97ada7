// ProcessEnvironment.swift
//
// The few environment variables the session layer reads (XDG_DATA_HOME, XDG_CACHE_HOME, HOME, the proxy
// variables), read with getenv(3) one name at a time. `ProcessInfo.processInfo.environment` gives the
// same values, but its first use builds the process-information object and a dictionary of every
// variable, and touches about 0.5 MB of FoundationEssentials' pages that a session that only wants a
// handful of names does not need (Scripts/profile.sh memory-steps). Like `ProcessInfo`, each read sees
// the environment as it is now.

import Foundation

/// Reads environment variables by name.
enum ProcessEnvironment {
    /// The variables among `names` that are set (empty values included), keyed by name.
    static func values(of names: [String]) -> [String: String] {
        var values: [String: String] = [:]
        for name in names {
            if let value = getenv(name) { values[name] = String(cString: value) }
        }
        return values
    }
}
