// Archiving a request serializer's state (NSSecureCoding): the string encoding, the methods that encode
// parameters in the URI, the default headers in the order they were set, the mirrored request
// properties that were set (one never set stays unset, so it keeps reading back URLRequest's default)
// and the query string style. The query string block cannot be archived and is left out, as in
// AFNetworking; copies keep it.

import Foundation

extension HTTPRequestSerializer.State {
    private enum Key {
        static let stringEncoding = "stringEncoding"
        static let methodsInURI = "httpMethodsEncodingParametersInURI"
        static let headerNames = "headerNames"
        static let headerValues = "headerValues"
        static let queryStringStyle = "queryStringSerializationStyle"
        static let allowsCellularAccess = "allowsCellularAccess"
        static let cachePolicy = "cachePolicy"
        static let httpShouldHandleCookies = "HTTPShouldHandleCookies"
        static let httpShouldUsePipelining = "HTTPShouldUsePipelining"
        static let networkServiceType = "networkServiceType"
        static let timeoutInterval = "timeoutInterval"
    }

    /// Decodes a state `encode(with:)` wrote; nil when the methods or the headers are missing or do not
    /// pair up.
    init?(coder: NSCoder) {
        guard let methods = coder.decodeObject(of: [NSArray.self, NSString.self], forKey: Key.methodsInURI)
                as? [String],
              let names = coder.decodeObject(of: [NSArray.self, NSString.self], forKey: Key.headerNames) as? [String],
              let values = coder.decodeObject(of: [NSArray.self, NSString.self], forKey: Key.headerValues)
                as? [String],
              names.count == values.count else { return nil }
        self.init()
        let encoding = UInt(truncatingIfNeeded: coder.decodeInt64(forKey: Key.stringEncoding))
        stringEncoding = String.Encoding(rawValue: encoding)
        httpMethodsEncodingParametersInURI = Set(methods)
        headers = zip(names, values).map { (name: $0, value: $1) }
        queryStringSerializationStyle = HTTPRequestQueryStringSerializationStyle(
            rawValue: coder.decodeInteger(forKey: Key.queryStringStyle))
        mirrored = Self.decodeMirrored(coder)
    }

    private static func decodeMirrored(_ coder: NSCoder) -> MirroredRequestProperties {
        func bool(_ key: String) -> Bool? { coder.containsValue(forKey: key) ? coder.decodeBool(forKey: key) : nil }
        func unsigned(_ key: String) -> UInt? {
            coder.containsValue(forKey: key) ? UInt(truncatingIfNeeded: coder.decodeInt64(forKey: key)) : nil
        }
        var mirrored = MirroredRequestProperties()
        mirrored.allowsCellularAccess = bool(Key.allowsCellularAccess)
        mirrored.cachePolicy = unsigned(Key.cachePolicy).flatMap(URLRequest.CachePolicy.init(rawValue:))
        mirrored.httpShouldHandleCookies = bool(Key.httpShouldHandleCookies)
        mirrored.httpShouldUsePipelining = bool(Key.httpShouldUsePipelining)
        mirrored.networkServiceType = unsigned(Key.networkServiceType)
            .flatMap(URLRequest.NetworkServiceType.init(rawValue:))
        mirrored.timeoutInterval = coder.containsValue(forKey: Key.timeoutInterval)
            ? coder.decodeDouble(forKey: Key.timeoutInterval) : nil
        return mirrored
    }

    /// Encodes everything but the query string block.
    func encode(with coder: NSCoder) {
        coder.encode(Int64(truncatingIfNeeded: stringEncoding.rawValue), forKey: Key.stringEncoding)
        coder.encode(httpMethodsEncodingParametersInURI.sorted() as NSArray, forKey: Key.methodsInURI)
        coder.encode(headers.map(\.name) as NSArray, forKey: Key.headerNames)
        coder.encode(headers.map(\.value) as NSArray, forKey: Key.headerValues)
        coder.encode(queryStringSerializationStyle.rawValue, forKey: Key.queryStringStyle)
        if let value = mirrored.allowsCellularAccess { coder.encode(value, forKey: Key.allowsCellularAccess) }
        if let value = mirrored.cachePolicy {
            coder.encode(Int64(truncatingIfNeeded: value.rawValue), forKey: Key.cachePolicy)
        }
        if let value = mirrored.httpShouldHandleCookies { coder.encode(value, forKey: Key.httpShouldHandleCookies) }
        if let value = mirrored.httpShouldUsePipelining { coder.encode(value, forKey: Key.httpShouldUsePipelining) }
        if let value = mirrored.networkServiceType {
            coder.encode(Int64(truncatingIfNeeded: value.rawValue), forKey: Key.networkServiceType)
        }
        if let value = mirrored.timeoutInterval { coder.encode(value, forKey: Key.timeoutInterval) }
    }
}
