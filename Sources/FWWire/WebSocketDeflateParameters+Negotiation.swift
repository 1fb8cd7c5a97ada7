// A client's reading of a server's permessage-deflate response (RFC 7692 §5 and §7.1): which parameters
// the response may name given our offer, and what they mean for both ends.
//
//   server_no_context_takeover   no value; required when we requested it
//   client_no_context_takeover   no value (also in force when we announced it ourselves)
//   server_max_window_bits=n     8-15, at most what we asked for; required when we asked for a limit
//   client_max_window_bits=n     8-15, only when offered, at most the value we offered
//   anything else, a parameter named twice, a value where none belongs or none where one must be: invalid

extension WebSocketDeflateParameters {
    /// The parameters a response's permessage-deflate element agrees to, given our `offer`; throws
    /// `invalidDeflateParameters` for anything RFC 7692 §7.1 forbids.
    init(
        accepting offer: WebSocketDeflateOffer,
        response parameters: [(name: String, value: String?)]
    ) throws(WebSocketHandshakeError) {
        self.init(clientNoContextTakeover: offer.clientNoContextTakeover)
        clientMaxWindowBits = offer.clientMaxWindowBits ?? 15
        var seen = Set<String>()
        for (name, value) in parameters {
            let name = name.lowercased()
            guard seen.insert(name).inserted else { throw .invalidDeflateParameters }
            switch name {
            case "server_no_context_takeover":
                guard value == nil else { throw .invalidDeflateParameters }
                serverNoContextTakeover = true
            case "client_no_context_takeover":
                guard value == nil else { throw .invalidDeflateParameters }
                clientNoContextTakeover = true
            case "server_max_window_bits":
                serverMaxWindowBits = try Self.windowBits(value, atMost: offer.serverMaxWindowBits ?? 15)
            case "client_max_window_bits":
                guard offer.offersClientMaxWindowBits || offer.clientMaxWindowBits != nil else {
                    throw .invalidDeflateParameters
                }
                clientMaxWindowBits = try Self.windowBits(value, atMost: offer.clientMaxWindowBits ?? 15)
            default:
                throw .invalidDeflateParameters
            }
        }
        guard !offer.requestsServerNoContextTakeover || serverNoContextTakeover,
            offer.serverMaxWindowBits == nil || seen.contains("server_max_window_bits")
        else { throw .invalidDeflateParameters }
    }

    /// A window-bits value: 1-2 digits without a leading zero, 8-15, at most `limit`.
    private static func windowBits(_ value: String?, atMost limit: Int) throws(WebSocketHandshakeError) -> Int {
        guard let value, let first = value.utf8.first, first != UInt8(ascii: "0"), value.utf8.count <= 2,
            value.utf8.allSatisfy({ ASCII.decimalDigitValue($0) != nil }), let bits = Int(value),
            WebSocketDeflateOffer.windowBits.contains(bits), bits <= limit
        else { throw .invalidDeflateParameters }
        return bits
    }
}
