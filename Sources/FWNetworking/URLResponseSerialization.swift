import Foundation

// MARK: - URLResponseSerialization

/// Turns a response and its body into the object a session manager hands to its completion handler
/// (the seeds' FWURLResponseSerialization, spelled as FWFramework's Swift port spells it).
///
/// The serializers: `HTTPResponseSerializer` (validation, the body as `Data`), `JSONResponseSerializer`,
/// `PropertyListResponseSerializer` and `CompoundResponseSerializer`. There is no XML parser serializer:
/// parsing XML on Linux means FoundationXML and libxml2, and the product links nothing beyond libc,
/// OpenSSL and zlib. Conforming types must be Sendable: a manager serializes on its own queue.
public protocol URLResponseSerialization: AnyObject, Sendable {
    /// The object decoded from `data`, or nil when there is nothing to decode; throws why the response
    /// is unacceptable or the body cannot be decoded.
    func responseObject(for response: URLResponse?, data: Data) throws -> Any?
}
