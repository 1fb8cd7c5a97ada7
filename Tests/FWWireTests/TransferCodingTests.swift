// The transfer codings besides chunked a response's Transfer-Encoding names, in the order they were applied
// (ResponseFramingRules.transferCodings(of:)): those FWNetworking decodes are named, any other is refused,
// so a body is never handed over still encoded (CONFORMANCE.md "Message body framing", rule 3).

import FWWire
import Testing

private struct CodingsCase: Sendable, CustomTestStringConvertible {
    let fields: [String]
    let expected: Result<[TransferCoding], HTTPParseError>

    var testDescription: String { fields.joined(separator: " | ") }

    init(_ fields: [String], _ codings: [TransferCoding]) {
        self.fields = fields
        expected = .success(codings)
    }

    init(_ fields: [String], error: HTTPParseError) {
        self.fields = fields
        expected = .failure(error)
    }
}

private let codingsCases: [CodingsCase] = [
    CodingsCase([], []),
    CodingsCase(["chunked"], []),
    CodingsCase([""], []),
    CodingsCase(["gzip, chunked"], [.gzip]),
    CodingsCase(["GZIP ,chunked"], [.gzip]),
    CodingsCase(["x-gzip, chunked"], [.gzip]),
    CodingsCase(["deflate, chunked"], [.deflate]),
    CodingsCase(["gzip"], [.gzip]),
    CodingsCase(["deflate, gzip, chunked"], [.deflate, .gzip]),
    CodingsCase(["deflate", "gzip", "chunked"], [.deflate, .gzip]),
    CodingsCase(["gzip, , chunked"], [.gzip]),
    CodingsCase(["chunked, gzip"], error: .unsupportedTransferCoding),
    CodingsCase(["chunked", "gzip"], error: .unsupportedTransferCoding),
    CodingsCase(["compress, chunked"], error: .unsupportedTransferCoding),
    CodingsCase(["x-compress"], error: .unsupportedTransferCoding),
    CodingsCase(["br, chunked"], error: .unsupportedTransferCoding),
    CodingsCase(["zstd, chunked"], error: .unsupportedTransferCoding),
    CodingsCase(["identity"], error: .unsupportedTransferCoding),
    CodingsCase(["gzipx, chunked"], error: .unsupportedTransferCoding),
    CodingsCase(["chunked, chunked"], error: .invalidTransferEncoding),
    CodingsCase(["gzip, chunked", "chunked"], error: .invalidTransferEncoding),
]

@Test("transfer codings besides chunked, in the order applied", arguments: codingsCases)
private func transferCodings(_ testCase: CodingsCase) {
    var headers = HTTPHeaders()
    for value in testCase.fields { headers.add(name: "Transfer-Encoding", value: value) }
    let head = HTTPResponseHead(version: .http1_1, status: 200, reason: "OK", headers: headers)
    let result = Result { () throws(HTTPParseError) in try ResponseFramingRules.transferCodings(of: head) }
    #expect(result == testCase.expected)
}

@Test("transfer codings are named as Transfer-Encoding spells them")
func transferCodingNames() {
    #expect(TransferCoding.gzip.description == "gzip")
    #expect(TransferCoding.deflate.description == "deflate")
    #expect(TransferCoding.gzip != TransferCoding.deflate)
}
