import Foundation

// MARK: - URLSessionTaskTraceEvent
//
// One event of a task's event trace (FWNetworking addition; `fwcurl --trace-json` writes them one per line).
// The schema (the DocC article "Event trace" lists every event and its fields):
//
//   {"t": <ns>, "task": <id>, "hop": <n>, "attempt": <n>, "connection": <id or null>, "event": "<name>", ...}
//
// `t` is the session's monotonic clock in nanoseconds (the clock of the transaction metrics); `hop` counts the
// requests the task sent (0 first, one more per redirect or answered challenge); `attempt` counts the tries of
// one hop (1, then 2 after the transport retried it on a new connection); `connection` is the transport's id
// of the connection the attempt runs on. The event's own fields follow, in a fixed order per event.

/// One event of a task's event trace (FWNetworking addition), as `URLSessionTaskTraceDelegate` hears it.
public struct URLSessionTaskTraceEvent: Sendable {
    /// A field's value.
    public enum Value: Sendable {
        /// Text.
        case string(String)
        /// A whole number (a size, a status, a time in nanoseconds).
        case integer(Int64)
        /// Yes or no.
        case bool(Bool)
        /// Bytes (base64 in JSON).
        case bytes([UInt8])
        /// A list of names (deviations).
        case strings([String])
        /// Header fields in order (`[["Name", "value"], ...]` in JSON).
        case fields([(name: String, value: String)])
    }

    /// The session clock's monotonic time of the event, in nanoseconds.
    public let time: UInt64
    /// The task's `taskIdentifier`.
    public let taskIdentifier: Int
    /// Which request of the task: 0 for the first, one more for each hop after it (redirect, challenge).
    public let hop: Int
    /// Which try of the hop: 1, then one more each time the transport retried it on a new connection.
    public let attempt: Int
    /// The transport's id of the connection the attempt runs on; nil before it has one.
    public let connection: UInt64?
    /// The event's name ("request", "pool", "resolve", "connect", "tls", "connected", "send", "recv",
    /// "tls_message", "response_head", "chunk", "body", "trailers", "deviations", "retry", "redirect",
    /// "next_hop", "end", "failed").
    public let name: String
    /// The event's own fields, in order.
    public let fields: [(name: String, value: Value)]

    /// Creates an event.
    public init(time: UInt64, taskIdentifier: Int, hop: Int, attempt: Int, connection: UInt64?, name: String,
                fields: [(name: String, value: Value)]) {
        self.time = time
        self.taskIdentifier = taskIdentifier
        self.hop = hop
        self.attempt = attempt
        self.connection = connection
        self.name = name
        self.fields = fields
    }

    /// The value of the field `name`, if the event has it.
    public subscript(field name: String) -> Value? {
        fields.first { $0.name == name }?.value
    }

    /// The event as one line of JSON (no line break): the schema in this file's opening comment.
    public var jsonLine: String {
        var line = "{\"t\":\(time),\"task\":\(taskIdentifier),\"hop\":\(hop),\"attempt\":\(attempt),\"connection\":"
        line += connection.map(String.init) ?? "null"
        line += ",\"event\":"
        Self.appendString(name, to: &line)
        for field in fields {
            line += ","
            Self.appendString(field.name, to: &line)
            line += ":"
            Self.append(field.value, to: &line)
        }
        line += "}"
        return line
    }

    // MARK: JSON text

    private static func append(_ value: Value, to line: inout String) {
        switch value {
        case .string(let text):
            appendString(text, to: &line)
        case .integer(let number):
            line += String(number)
        case .bool(let flag):
            line += flag ? "true" : "false"
        case .bytes(let bytes):
            appendString(Data(bytes).base64EncodedString(), to: &line)
        case .strings(let names):
            line += "["
            for (index, name) in names.enumerated() {
                if index > 0 { line += "," }
                appendString(name, to: &line)
            }
            line += "]"
        case .fields(let fields):
            line += "["
            for (index, field) in fields.enumerated() {
                line += index > 0 ? ",[" : "["
                appendString(field.name, to: &line)
                line += ","
                appendString(field.value, to: &line)
                line += "]"
            }
            line += "]"
        }
    }

    /// `text` as a JSON string: quotes, backslashes and control characters escaped (RFC 8259 §7).
    private static func appendString(_ text: String, to line: inout String) {
        line += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": line += "\\\""
            case "\\": line += "\\\\"
            case "\n": line += "\\n"
            case "\r": line += "\\r"
            case "\t": line += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                line += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                line.unicodeScalars.append(scalar)
            }
        }
        line += "\""
    }
}
