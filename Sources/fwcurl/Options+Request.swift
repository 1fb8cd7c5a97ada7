import Foundation
import FWNetworking

// MARK: - The request and the transfer plan of one URL

extension Options {
    /// The request for the URL at `index`; a `resumeOffset` asks for the bytes from there on. Throws
    /// when a `-F @FILE` can no longer be read.
    func request(forURLAt index: Int, resumeOffset: Int64?) throws -> URLRequest {
        var request = URLRequest(url: uploadFile.map { Self.uploadURL(urls[index], file: $0) } ?? urls[index])
        request.httpMethod = method ?? (uploadFile != nil ? "PUT" : body == nil && formFields.isEmpty ? "GET" : "POST")
        // Each -H is a line of its own, in the given order and case, even when a name repeats.
        for header in headers { request.fwAppendHeaderFieldLine(header.value, forHTTPHeaderField: header.name) }
        // `-b NAME=VALUE` after a `-H Cookie:` of the user's; the session adds the stored cookies after both.
        if let pairs = cookies.fieldValue {
            let own = request.value(forHTTPHeaderField: "Cookie")
            request.setValue(own.map { $0 + "; " + pairs } ?? pairs, forHTTPHeaderField: "Cookie")
        }
        if let basic = authentication?.preemptiveAuthorization,
           request.value(forHTTPHeaderField: "Authorization") == nil {
            request.setValue(basic, forHTTPHeaderField: "Authorization")
        }
        if let body {
            request.httpBody = body
            if request.value(forHTTPHeaderField: "Content-Type") == nil {
                request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            }
        }
        // FWURLSession asks for gzip and deflate (and br) when a request names no encoding; curl asks for none
        // unless --compressed, and "identity" is how to ask for the bytes as stored. A continued transfer
        // always asks for them: a range of an encoded body cannot be appended to decoded bytes.
        if request.value(forHTTPHeaderField: "Accept-Encoding") == nil {
            let encoded = compressed && resumeOffset == nil
            request.setValue(encoded ? Self.compressedEncodings : "identity", forHTTPHeaderField: "Accept-Encoding")
        }
        if let resumeOffset { request.setValue("bytes=\(resumeOffset)-", forHTTPHeaderField: "Range") }
        if let path = conformance.rawRequestFile {
            // --request-raw: the file's bytes replace everything above on the wire.
            request.fwRawRequest = try Data(contentsOf: URL(fileURLWithPath: path))
            request.cachePolicy = .reloadIgnoringLocalCacheData
            return request
        }
        return formFields.isEmpty ? request : try addingForm(to: request)
    }

    /// What `--compressed` asks for, in curl's order: `br` only when this process decodes it (libbrotlidec).
    static let compressedEncodings = ContentCodings.decodesBrotli ? "deflate, gzip, br" : "deflate, gzip"

    /// What the transfer of the URL at `index` does with its response (the resume offset is read from
    /// the output file now, just before the transfer).
    func plan(forURLAt index: Int) -> TransferPlan {
        let destination: BodyDestination = if index < outputFiles.count {
            .file(outputFiles[index])
        } else {
            json ? .memory : .standardOutput
        }
        // Nothing to continue from (an empty or missing file): an ordinary transfer, as with curl.
        let offset: Int64 = switch (resume, destination) {
        case (.offset(let offset), _): offset
        case (.outputSize, .file(let path)): OutputFile.size(atPath: path)
        case (.outputSize, _), (nil, _): 0
        }
        let meter = !silent && !verbose && !json && isatty(STDERR_FILENO) == 1
        var isFile = false
        if case .file = destination { isFile = true }
        return TransferPlan(destination: destination, resumeOffset: offset > 0 ? offset : nil,
                            includeHeaders: includeHeaders && !json, followRedirects: followRedirects,
                            maxRedirects: maxRedirects,
                            uploadMeter: meter && (uploadFile != nil || !formFields.isEmpty),
                            downloadMeter: meter && isFile, failOnHTTPError: fail, maxFileSize: maxFileSize,
                            authentication: authentication, proxyAuthentication: proxyAuthentication)
    }

    /// curl's `-T` rule: a URL without a file part (its path empty or ending in `/`) gets the local
    /// file's name appended.
    static func uploadURL(_ url: URL, file: String) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        let path = components.percentEncodedPath
        guard path.isEmpty || path.hasSuffix("/") else { return url }
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove("/")
        let name = (file as NSString).lastPathComponent
        components.percentEncodedPath = (path.isEmpty ? "/" : path)
            + (name.addingPercentEncoding(withAllowedCharacters: allowed) ?? name)
        return components.url ?? url
    }
}
