import Foundation

// MARK: - TemporaryDirectory

/// A new, uniquely named directory under the system's temporary directory, for one test: removed with its
/// contents by `remove()` or when the last reference goes.
public final class TemporaryDirectory: Sendable {
    /// The directory (created).
    public let url: URL

    /// Creates the directory; `prefix` starts its name.
    public init(prefix: String = "fw-test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        remove()
    }

    /// The directory's path.
    public var path: String { url.path }

    /// The path of `name` inside the directory.
    public func file(_ name: String) -> String { path + "/" + name }

    /// The names in the directory, sorted (none once it is removed).
    public var fileNames: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }

    /// Deletes the directory and everything in it.
    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
