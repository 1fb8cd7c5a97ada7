// fwcurl's -F / --form, as curl's: a multipart/form-data body (POST unless -X) with one part per -F, in
// order. `name=value` is a text field; `name=@FILE` a file part, streamed from disk, named as the file
// and typed by its extension unless `;filename=NAME` or `;type=MIME` say otherwise; `name=<FILE` a text
// field whose value is FILE's content (read when the command line is parsed). A file name may be
// double-quoted to hold `;` (`@"a;b.txt"`); `;type=` applies to text fields too.

import Foundation
import FWNetworking

// MARK: - FormField

/// One `-F` argument.
struct FormField {
    /// Where the part's body comes from.
    enum Content {
        /// `name=value`.
        case text(String)
        /// `name=<FILE`: the file's bytes, read at parse time.
        case fileContents(Data)
        /// `name=@FILE`: the file, streamed when sent.
        case file(path: String)
    }

    var name: String
    var content: Content
    /// `;type=MIME`.
    var type: String?
    /// `;filename=NAME`.
    var filename: String?

    /// Parses `name=value`, `name=@FILE[;type=MIME][;filename=NAME]` or `name=<FILE[;type=MIME]`.
    init(argument: String) throws(Options.UsageError) {
        guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex else {
            throw Options.UsageError(description: "-F '\(argument)' is not name=content")
        }
        name = String(argument[..<equals])
        var rest = argument[argument.index(after: equals)...]
        let marker = rest.first.flatMap { "@<".contains($0) ? $0 : nil }
        if marker != nil { rest = rest.dropFirst() }
        let (value, parameters) = try Self.splitValue(rest, quotedAllowed: marker != nil)
        for (key, parameter) in parameters {
            switch key.lowercased() {
            case "type": type = parameter
            case "filename": filename = parameter
            default: throw Options.UsageError(description: "-F: unknown parameter '\(key)' in '\(argument)'")
            }
        }
        switch marker {
        case "@": content = .file(path: try Self.readableFile(value))
        case "<": content = .fileContents(try Self.contents(of: value))
        default: content = .text(value)
        }
    }

    // MARK: Parsing

    /// The value (a double-quoted one unescaped, when allowed) and the `;key=value` parameters after
    /// it. Only `;type=` and `;filename=` end a value, so other semicolons stay in it, as in curl.
    private static func splitValue(_ text: Substring, quotedAllowed: Bool) throws(Options.UsageError)
        -> (String, [(String, String)]) {
        var rest = text
        let value: String
        if quotedAllowed, rest.first == "\"" {
            value = try unquote(&rest)
        } else {
            let end = parameterStart(in: rest) ?? rest.endIndex
            value = String(rest[..<end])
            rest = rest[end...]
        }
        var parameters: [(String, String)] = []
        while !rest.isEmpty {
            guard rest.first == ";", let equals = rest.firstIndex(of: "=") else {
                throw Options.UsageError(description: "-F: cannot read '\(text)'")
            }
            let key = rest[rest.index(after: rest.startIndex)..<equals].trimmingCharacters(in: .whitespaces)
            rest = rest[rest.index(after: equals)...]
            if rest.first == "\"" {
                parameters.append((key, try unquote(&rest)))
            } else {
                let end = rest.firstIndex(of: ";") ?? rest.endIndex
                parameters.append((key, String(rest[..<end])))
                rest = rest[end...]
            }
        }
        return (value, parameters)
    }

    /// The index of the first `;` that starts a `type=` or `filename=` parameter.
    private static func parameterStart(in text: Substring) -> Substring.Index? {
        text.indices.first { index in
            guard text[index] == ";" else { return false }
            let after = text[text.index(after: index)...].drop { $0 == " " }.lowercased()
            return after.hasPrefix("type=") || after.hasPrefix("filename=")
        }
    }

    /// Reads a double-quoted string at the start of `text` (`\"` and `\\` escaped) and moves past it.
    private static func unquote(_ text: inout Substring) throws(Options.UsageError) -> String {
        var value = ""
        var index = text.index(after: text.startIndex)
        while index < text.endIndex, text[index] != "\"" {
            if text[index] == "\\", text.index(after: index) < text.endIndex { index = text.index(after: index) }
            value.append(text[index])
            index = text.index(after: index)
        }
        guard index < text.endIndex else {
            throw Options.UsageError(description: "-F: unterminated quote in '\(text)'")
        }
        text = text[text.index(after: index)...]
        return value
    }

    // MARK: Files

    private static func readableFile(_ path: String) throws(Options.UsageError) -> String {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, access(path, R_OK) == 0 else {
            throw Options.UsageError(description: "-F: cannot read \(path) (it must be a readable file)")
        }
        return path
    }

    private static func contents(of path: String) throws(Options.UsageError) -> Data {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Options.UsageError(description: "-F: cannot read \(path)")
        }
        return data
    }
}

// MARK: - The form body

extension Options {
    /// `request` with the `-F` fields as its multipart/form-data body stream (exact Content-Length).
    /// Throws when a file of an `@FILE` field can no longer be read.
    func addingForm(to request: URLRequest) throws -> URLRequest {
        let form = StreamingMultipartFormData(urlRequest: request, stringEncoding: .utf8)
        for field in formFields {
            switch field.content {
            case .text(let text): Self.append(Data(text.utf8), as: field, to: form)
            case .fileContents(let data): Self.append(data, as: field, to: form)
            case .file(let path):
                let filename = field.filename ?? (path as NSString).lastPathComponent
                let type = field.type
                    ?? StreamingMultipartFormData.mimeType(forPathExtension: (filename as NSString).pathExtension)
                try form.appendPart(fileURL: URL(fileURLWithPath: path), name: field.name, fileName: filename,
                                    mimeType: type)
            }
        }
        return try form.requestByFinalizingMultipartFormData()
    }

    /// A text part: a plain field, or with the Content-Type and file name the field asks for.
    private static func append(_ data: Data, as field: FormField, to form: StreamingMultipartFormData) {
        var headers = ["Content-Disposition": StreamingMultipartFormData.contentDisposition(name: field.name,
                                                                                             fileName: field.filename)]
        headers["Content-Type"] = field.type
        form.appendPart(headers: headers, body: data)
    }
}
