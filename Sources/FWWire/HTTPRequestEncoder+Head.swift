// The request head in one pass over its fields: each field is validated and measured, the framing fields
// that decide an error are noted on the way (Host, Content-Length, Transfer-Encoding), and the head is then
// written into memory sized once, with no per-piece `Array.append` (28 of them for a small GET, each with
// its uniqueness check) and no slice retained per field. A head that fails validation writes nothing.

extension HTTPRequestEncoder {
    /// What a validating pass over the fields found.
    struct FieldSummary {
        /// Bytes the fields take on the wire ("Name: value CRLF" each).
        var encodedSize = 0
        var hasHost = false
        var hasContentLength = false
        var hasTransferEncoding = false
    }

    /// Validates `fields` (names tokens, values no CR, LF or NUL) and measures them.
    static func summarize(_ fields: HTTPHeaders) -> Result<FieldSummary, HTTPRequestError> {
        fields.withStorage { bytes, ranges in
            var summary = FieldSummary()
            for field in ranges {
                let name = UnsafeBufferPointer(rebasing: bytes[field.name])
                guard !name.isEmpty, ByteClass.token.containsAll(name) else { return .failure(.invalidHeaderName) }
                guard ByteClass.requestFieldValue.containsAll(UnsafeBufferPointer(rebasing: bytes[field.value])) else {
                    return .failure(.invalidHeaderValue)
                }
                summary.encodedSize += name.count + field.value.count + 4
                switch name.count {
                case 4 where ASCII.equalIgnoringCase(name, "host"): summary.hasHost = true
                case 14 where ASCII.equalIgnoringCase(name, "content-length"): summary.hasContentLength = true
                case 17 where ASCII.equalIgnoringCase(name, "transfer-encoding"): summary.hasTransferEncoding = true
                default: break
                }
            }
            return .success(summary)
        }
    }

    /// Throws the first reason `head` cannot be written as is, with a `Host` field written apart from its
    /// fields when `host` is given; returns what the fields' pass found.
    static func checked(_ head: HTTPRequestHead, host: (name: String, port: Int?)?) throws(HTTPRequestError)
        -> FieldSummary
    {
        guard !head.method.isEmpty, ByteClass.token.containsAll(head.method.utf8) else { throw .invalidMethod }
        guard !head.target.isEmpty, ByteClass.requestTarget.containsAll(head.target.utf8) else {
            throw .invalidTarget
        }
        guard head.version == .http1_1 || head.version == .http1_0 else { throw .unsupportedVersion }
        let fields = try summarize(head.headers).get()
        if host == nil, head.version == .http1_1, !fields.hasHost { throw .missingHost }
        if fields.hasContentLength, fields.hasTransferEncoding { throw .conflictingFraming }
        if let host {
            guard !host.name.isEmpty, ByteClass.requestFieldValue.containsAll(host.name.utf8) else {
                throw .invalidHeaderValue
            }
            guard !fields.hasHost else { throw .invalidHeaderName }
        }
        return fields
    }

    /// Validates `head` and appends it to `buffer`, with "Host: `host`" as its first field when given.
    static func writeHead(_ head: HTTPRequestHead, host: (name: String, port: Int?)?, into buffer: inout [UInt8])
        throws(HTTPRequestError)
    {
        let fields = try checked(head, host: host)
        var method = head.method
        var target = head.target
        var hostName = host?.name ?? ""
        // Searched in place: `utf8.contains` walks a String's iterator (some 300 instructions for a host).
        let bracketed = hostName.withUTF8 { $0.contains(ASCII.colon) }
        let port = host?.port.map(DecimalDigits.init)
        let version: StaticString = head.version == .http1_1 ? "HTTP/1.1" : "HTTP/1.0"

        var size = method.utf8.count + 1 + target.utf8.count + 1 + version.utf8CodeUnitCount + 2
        if host != nil {
            size += 6 + hostName.utf8.count + (bracketed ? 2 : 0) + (port.map { 1 + $0.count } ?? 0) + 2
        }
        size += fields.encodedSize + 2

        let encoded = [UInt8](unsafeUninitializedCapacity: size) { room, written in
            var out = HeadWriter(room)
            method.withUTF8 { out.write($0) }
            out.write(ASCII.space)
            target.withUTF8 { out.write($0) }
            out.write(ASCII.space)
            out.write(version)
            out.write("\r\n")
            if host != nil {
                out.write("Host: ")
                if bracketed { out.write(UInt8(ascii: "[")) }
                hostName.withUTF8 { out.write($0) }
                if bracketed { out.write(UInt8(ascii: "]")) }
                if let port {
                    out.write(ASCII.colon)
                    port.write(to: &out)
                }
                out.write("\r\n")
            }
            head.headers.withStorage { bytes, ranges in
                for field in ranges {
                    out.write(UnsafeBufferPointer(rebasing: bytes[field.name]))
                    out.write(": ")
                    out.write(UnsafeBufferPointer(rebasing: bytes[field.value]))
                    out.write("\r\n")
                }
            }
            out.write("\r\n")
            written = out.count
        }
        if buffer.isEmpty { buffer = encoded } else { buffer.append(contentsOf: encoded) }
    }
}

/// Writes bytes one after another into memory its owner sized for them.
struct HeadWriter {
    private let base: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    private(set) var count = 0

    init(_ room: UnsafeMutableBufferPointer<UInt8>) {
        // A head is never empty (its request line alone takes 16 bytes or more), so its room has an address.
        guard let base = room.baseAddress else { preconditionFailure("no room for a request head") }
        self.base = base
        capacity = room.count
    }

    mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        precondition(count + bytes.count <= capacity, "head written past its measured size")
        (base + count).initialize(from: source, count: bytes.count)
        count += bytes.count
    }

    mutating func write(_ text: StaticString) {
        write(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func write(_ byte: UInt8) {
        precondition(count < capacity, "head written past its measured size")
        (base + count).initialize(to: byte)
        count += 1
    }
}

/// The decimal digits of a non-negative number (a port), kept to be measured and then written.
struct DecimalDigits {
    private var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
    private(set) var count = 0

    init(_ value: Int) {
        var magnitude = value.magnitude
        withUnsafeMutableBytes(of: &digits) { room in
            repeat {
                room[23 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
        }
        if value < 0 {
            withUnsafeMutableBytes(of: &digits) { $0[23 - count] = UInt8(ascii: "-") }
            count += 1
        }
    }

    func write(to out: inout HeadWriter) {
        var digits = digits
        withUnsafeBytes(of: &digits) { all in
            out.write(UnsafeBufferPointer(rebasing: all.bindMemory(to: UInt8.self)[(24 - count)...]))
        }
    }
}
