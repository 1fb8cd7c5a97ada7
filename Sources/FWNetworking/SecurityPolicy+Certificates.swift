import Foundation

// MARK: - Pinned certificates from files

extension SecurityPolicy {
    /// The bytes of every `.cer` resource of `bundle` (top level of its resources), as pins expect
    /// them: DER certificates. A file that is not DER is kept and ignored when the policy evaluates.
    public static func certificates(in bundle: Bundle) -> Set<Data> {
        Set(bundle.paths(forResourcesOfType: "cer", inDirectory: nil).compactMap(FileManager.default.contents(atPath:)))
    }

    /// FWNetworking addition: the bytes of every `.cer` file directly in `directory` (subdirectories
    /// are not searched), for programs whose certificates are not bundle resources. Empty when the
    /// directory cannot be read.
    public static func certificates(inDirectory directory: URL) -> Set<Data> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let files = names.filter { ($0 as NSString).pathExtension == "cer" }
        return Set(files.compactMap { FileManager.default.contents(atPath: directory.appendingPathComponent($0).path) })
    }
}
