import Foundation
import FWTransport

// MARK: - RequestTemplate
//
// The fields a session writes into every request that names none of its own: its configuration's
// `httpAdditionalHeaders`, then `User-Agent`, `Accept` and `Accept-Encoding` (`URLRequest.outgoing`). They
// depend on the configuration only, and the session's copy of it never changes, so they are made once per
// session, in both forms a request takes: the outgoing `URLRequest`'s fields, and the transport request's
// wire fields. A request with no field of its own and no cookie to send (most) takes them as they are:
// no lookup per default field, nothing appended, no string copied into the wire fields. Any other request
// is written field by field, by the same rules (the template is those rules run on an empty request).

/// The default fields of a session's requests, made once.
struct RequestTemplate: Sendable {
    /// The fields as the outgoing `URLRequest` holds them.
    let fields: [URLRequest.HeaderField]
    /// The same fields on the wire.
    let wireFields: HTTPHeaders

    init(configuration: URLSessionConfiguration) {
        // The general path's rules, run once on a request without fields (its URL plays no part).
        let empty = URLRequest(url: URL(fileURLWithPath: "/"))
        fields = empty.outgoing(configuration: configuration, cookies: nil).headerFields ?? []
        var wire = HTTPHeaders()
        for field in fields { wire.add(name: field.name, value: field.value) }
        wireFields = wire
    }

    /// A request's `own` fields, then the template's fields it does not name: what the general path of
    /// `URLRequest.outgoing` makes of a request with fields of its own and no cookie (the template is that path
    /// run on no field, so its fields are the configuration's and the defaults, each name once, in that order),
    /// without looking each default up in a request being rebuilt field by field.
    func fields(under own: [URLRequest.HeaderField]) -> [URLRequest.HeaderField] {
        var merged = own
        merged.reserveCapacity(own.count + fields.count)
        for field in fields where !own.contains(where: { $0.name.isEqualIgnoringASCIICase(field.name) }) {
            merged.append(field)
        }
        return merged
    }

    /// Whether `other` holds exactly the template's fields: what an outgoing request made from the template
    /// has (each string compares equal to itself at once).
    func matches(_ other: [URLRequest.HeaderField]) -> Bool {
        other.count == fields.count && zip(other, fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }
}
