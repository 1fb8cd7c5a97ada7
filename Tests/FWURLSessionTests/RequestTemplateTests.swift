import Foundation
import FWTransport
@testable import FWURLSession
import Testing

// Issue 23 (stage C): a session's default fields are made once (`RequestTemplate`), and a request takes them
// only when the field-by-field rules would give the same request.
@Suite struct RequestTemplateTests {
    static func configuration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.default
        configuration.httpAdditionalHeaders = ["X-Extra": "1", "Accept": "text/plain"]
        return configuration
    }

    static let url = URL(string: "http://h.example/a")!

    /// A request's outgoing fields and wire fields under `configuration`, made with the template and without.
    static func made(_ request: URLRequest, _ configuration: URLSessionConfiguration, cookies: String?,
                     template: RequestTemplate?) throws -> (fields: [(String, String)], wire: HTTPHeaders) {
        let outgoing = request.outgoing(configuration: configuration, cookies: cookies, template: template)
        let transport = try TransportRequest(outgoing, configuration: configuration, tracing: false,
                                             template: template)
        return ((outgoing.headerFields ?? []).map { ($0.name, $0.value) }, transport.head.headers)
    }

    @Test func theTemplateHoldsTheConfigurationsFieldsThenTheDefaults() {
        let template = RequestTemplate(configuration: Self.configuration())
        let names = template.fields.map(\.name)
        #expect(Set(names.prefix(2)) == ["X-Extra", "Accept"])
        #expect(Array(names.dropFirst(2)) == ["User-Agent", "Accept-Encoding"])
        #expect(template.wireFields.first(name: "accept") == "text/plain")
        #expect(template.wireFields.count == template.fields.count)
    }

    @Test(arguments: [
        (nil, nil),                           // the template's case
        ("X-Own", nil),                       // a field of its own
        ("User-Agent", nil),                  // a field that replaces a default
        ("accept", nil),                      // one that replaces a configuration field, in another case
        ("x-extra", nil),                     // the same for the other configuration field
        ("ACCEPT-ENCODING", nil),             // and for the last default
        (nil, "a=b"),                         // a cookie to send
    ] as [(String?, String?)])
    func withTheTemplateARequestIsWhatTheRulesMake(_ ownField: String?, _ cookies: String?) throws {
        var request = URLRequest(url: Self.url)
        if let ownField { request.setValue("own", forHTTPHeaderField: ownField) }
        // One configuration for both, as a session has: its additional fields keep one dictionary order.
        let configuration = Self.configuration()
        let template = RequestTemplate(configuration: configuration)
        let fast = try Self.made(request, configuration, cookies: cookies, template: template)
        let general = try Self.made(request, configuration, cookies: cookies, template: nil)
        #expect(fast.fields.map { "\($0.0): \($0.1)" } == general.fields.map { "\($0.0): \($0.1)" })
        #expect(fast.wire == general.wire)
        #expect(fast.wire.first(name: "user-agent") == (ownField == "User-Agent" ? "own" : URLRequest.defaultUserAgent))
        #expect(fast.wire.first(name: "cookie") == cookies)
    }

    @Test func onlyTheTemplatesOwnFieldsMatchIt() {
        let template = RequestTemplate(configuration: Self.configuration())
        #expect(template.matches(template.fields))
        var changed = template.fields
        changed[0].value += "x"
        #expect(!template.matches(changed))
        #expect(!template.matches(Array(template.fields.dropLast())))
    }
}
