// permessage-deflate (RFC 7692 §7.1): what a client offers, and the parameters both ends then use.

// MARK: - Offer

/// What a client asks for when it offers permessage-deflate. The default offer is what browsers send:
/// `permessage-deflate; client_max_window_bits` (any window the server likes, context kept both ways).
public struct WebSocketDeflateOffer: Sendable, Hashable {
    /// Asks the server to reset its compression context after each message (`server_no_context_takeover`);
    /// a server that accepts the offer must agree.
    public var requestsServerNoContextTakeover: Bool
    /// Announces that we reset our compression context after each message (`client_no_context_takeover`).
    public var clientNoContextTakeover: Bool
    /// Asks the server to compress with a window of at most 2^n bytes (`server_max_window_bits=n`, 8-15);
    /// a server that accepts the offer must agree. nil asks for nothing.
    public var serverMaxWindowBits: Int?
    /// Offers `client_max_window_bits` without a value: the server may choose the window we compress
    /// with. Without it (and without `clientMaxWindowBits`), a response naming our window is invalid.
    public var offersClientMaxWindowBits: Bool
    /// The largest window we compress with (`client_max_window_bits=n`, 8-15), offered with that value
    /// whatever `offersClientMaxWindowBits` says; nil for none.
    public var clientMaxWindowBits: Int?

    /// An offer; the defaults are the browsers' offer.
    public init(
        requestsServerNoContextTakeover: Bool = false, clientNoContextTakeover: Bool = false,
        serverMaxWindowBits: Int? = nil, offersClientMaxWindowBits: Bool = true, clientMaxWindowBits: Int? = nil
    ) {
        self.requestsServerNoContextTakeover = requestsServerNoContextTakeover
        self.clientNoContextTakeover = clientNoContextTakeover
        self.serverMaxWindowBits = serverMaxWindowBits
        self.offersClientMaxWindowBits = offersClientMaxWindowBits
        self.clientMaxWindowBits = clientMaxWindowBits
    }

    /// The window sizes RFC 7692 §7.1.2 allows, as base-2 logarithms.
    public static let windowBits = 8...15

    /// True when both window sizes, if given, are within `windowBits`.
    var isValid: Bool {
        [serverMaxWindowBits, clientMaxWindowBits].allSatisfy { bits in bits.map(Self.windowBits.contains) ?? true }
    }

    /// The offer as one element of `Sec-WebSocket-Extensions`.
    var headerValue: String {
        var value = "permessage-deflate"
        if requestsServerNoContextTakeover {
            value += "; server_no_context_takeover"
        }
        if clientNoContextTakeover {
            value += "; client_no_context_takeover"
        }
        if let serverMaxWindowBits {
            value += "; server_max_window_bits=\(serverMaxWindowBits)"
        }
        if let clientMaxWindowBits {
            value += "; client_max_window_bits=\(clientMaxWindowBits)"
        } else if offersClientMaxWindowBits {
            value += "; client_max_window_bits"
        }
        return value
    }
}

// MARK: - Agreed parameters

/// The permessage-deflate parameters a handshake agreed on: how the server compresses what we inflate,
/// and how we compress what we send.
public struct WebSocketDeflateParameters: Sendable, Hashable {
    /// The server resets its context after each message: we may reset our inflater after each one.
    public var serverNoContextTakeover: Bool
    /// We reset our compression context after each message.
    public var clientNoContextTakeover: Bool
    /// The server's window is at most 2^n bytes (8-15).
    public var serverMaxWindowBits: Int
    /// Our window must be at most 2^n bytes (8-15).
    public var clientMaxWindowBits: Int

    /// Parameters from their values; the defaults are RFC 7692's (context kept, 32 KiB windows).
    public init(
        serverNoContextTakeover: Bool = false, clientNoContextTakeover: Bool = false,
        serverMaxWindowBits: Int = 15, clientMaxWindowBits: Int = 15
    ) {
        self.serverNoContextTakeover = serverNoContextTakeover
        self.clientNoContextTakeover = clientNoContextTakeover
        self.serverMaxWindowBits = serverMaxWindowBits
        self.clientMaxWindowBits = clientMaxWindowBits
    }
}
