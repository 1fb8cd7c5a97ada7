import BenchSupport
import Foundation
import Testing

// MARK: - Amount

@Test(arguments: [
    ("20000", Amount.requests(20000)),
    ("1", .requests(1)),
    ("2s", .seconds(2)),
    ("2.5s", .seconds(2.5)),
])
func amountParses(text: String, expected: Amount) {
    #expect(Amount(text) == expected)
    #expect(Amount(expected.description) == expected)
}

@Test(arguments: ["", "0", "-3", "s", "0s", "-1s", "2m", "abc", "infs"])
func amountRejects(text: String) {
    #expect(Amount(text) == nil)
}

// MARK: - Command lines

@Test func argumentsWithDefaults() throws {
    let arguments = try ClientArguments(["http://127.0.0.1:8080/64.bin", "32", "2s", "get"])
    #expect(arguments.url.absoluteString == "http://127.0.0.1:8080/64.bin")
    #expect(arguments.concurrency == 32)
    #expect(arguments.amount == .seconds(2))
    #expect(arguments.mode == .get)
    #expect(arguments.maxConnections == 32)
    #expect(arguments.api == nil)
    #expect(arguments.caCertificates == nil)
    #expect(arguments.tlsResumption == nil)
    #expect(arguments.file == nil)
    #expect(arguments.busyPoll == nil)
}

@Test(arguments: [("0", 0.0), ("0.0001", 0.000_1)])
func busyPollTakesSeconds(value: String, seconds: Double) throws {
    let arguments = try ClientArguments(["http://127.0.0.1:1/64.bin", "1", "2s", "get", "--busy-poll", value])
    #expect(arguments.busyPoll == seconds)
}

@Test(arguments: [("on", true), ("off", false)])
func argumentsForHTTPS(value: String, resumption: Bool) throws {
    let arguments = try ClientArguments(["https://127.0.0.1:8443/64.bin", "1", "2s", "close", "--cacert", "/ca.pem",
                                         "--tls-resumption", value])
    #expect(arguments.url.scheme == "https")
    #expect(arguments.caCertificates == "/ca.pem")
    #expect(arguments.tlsResumption == resumption)
}

@Test(arguments: [Mode.download, .upload])
func fileModesTakeTheirFile(mode: Mode) throws {
    let arguments = try ClientArguments(["http://127.0.0.1:1/1g.bin", "1", "1", mode.name, "--file", "/tmp/x"])
    #expect(arguments.mode == mode)
    #expect(arguments.mode.usesFile)
    #expect(arguments.file == "/tmp/x")
}

@Test func argumentsWithOptionsAnywhere() throws {
    let arguments = try ClientArguments(["--api", "async", "http://127.0.0.1:1/x", "1000", "1000", "close",
                                         "--max-conns", "8"])
    #expect(arguments.concurrency == 1000)
    #expect(arguments.amount == .requests(1000))
    #expect(arguments.mode == .close)
    #expect(arguments.maxConnections == 8)
    #expect(arguments.api == "async")
}

@Test(arguments: [
    [],
    ["http://127.0.0.1:1/", "1", "1"],
    ["http://127.0.0.1:1/", "1", "1", "get", "extra"],
    ["http://example.com/", "1", "1", "get"],
    ["http://10.0.0.1:80/", "1", "1", "get"],
    ["ftp://127.0.0.1:1/", "1", "1", "get"],
    ["https://localhost:1/", "1", "1", "get"],
    ["http://127.0.0.1:1/", "0", "1", "get"],
    ["http://127.0.0.1:1/", "1", "0", "get"],
    ["http://127.0.0.1:1/", "1", "1", "post"],
    ["http://127.0.0.1:1/", "1", "1", "get", "--max-conns"],
    ["http://127.0.0.1:1/", "1", "1", "get", "--max-conns", "0"],
    ["https://127.0.0.1:1/", "1", "1", "close", "--tls-resumption", "yes"],
    ["http://127.0.0.1:1/", "1", "1", "download"],
    ["http://127.0.0.1:1/", "1", "1", "upload", "--file"],
    ["http://127.0.0.1:1/", "1", "1", "get", "--file", "/tmp/x"],
    ["http://127.0.0.1:1/", "1", "1", "get", "--busy-poll", "-1"],
    ["http://127.0.0.1:1/", "1", "1", "get", "--busy-poll", "soon"],
])
func argumentsRejected(arguments: [String]) {
    #expect(throws: UsageError.self) { try ClientArguments(arguments) }
}

@Test func usageNamesTheClient() {
    #expect(ClientArguments.usage("bench-fw").hasPrefix("usage: bench-fw URL CONCURRENCY"))
}
