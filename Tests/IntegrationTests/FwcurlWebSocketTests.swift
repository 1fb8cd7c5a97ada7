import Foundation
import Testing
import TestSupport

// `fwcurl ws://…` against Debian's python3-websockets: standard input lines go out as text messages, what
// arrives is printed (one JSON object per message with --json), the end of input closes with 1000.
@Suite struct FwcurlWebSocketTests {
    @Test func linesGoOutAndEchoesArePrintedAsJSON() throws {
        let server = try PythonWebSocketServer()
        defer { server.stop() }
        let run = try Fwcurl.runInteractive(["--json", "ws://127.0.0.1:\(server.deflatePort)/echo"],
                                            lines: ["hello", "wörld"],
                                            awaiting: [#""data": "hello""#, #""data": "wörld""#])
        let lines = run.text.split(separator: "\n").map(String.init)
        #expect(lines == [#"{"type": "text", "data": "hello"}"#, #"{"type": "text", "data": "wörld"}"#,
                          #"{"type": "close", "code": 1000, "reason": ""}"#], "\(run.stderr)")
        #expect(run.status == 0)
    }

    // Issue 28, item 5: `printf 'one\ntwo\n' | fwcurl -s ws://…` — the input ends before any echo is back; our
    // close goes out and the echoes the server sent before it saw it are still printed, then its close ends it.
    @Test(arguments: [false, true])
    func theEchoesAfterTheEndOfInputArePrinted(json: Bool) throws {
        let server = try PythonWebSocketServer()
        defer { server.stop() }
        // /echo-in-order: python3-websockets' /echo may read our close before its handler echoed (it then
        // refuses the echoes); this path echoes before it reads on.
        let url = "ws://127.0.0.1:\(json ? server.deflatePort : server.plainPort)/echo-in-order"
        let run = try Fwcurl.run(json ? ["--json", url] : ["-s", url], input: "one\ntwo\n")
        if json {
            #expect(run.text.split(separator: "\n").map(String.init)
                        == [#"{"type": "text", "data": "one"}"#, #"{"type": "text", "data": "two"}"#,
                            #"{"type": "close", "code": 1000, "reason": ""}"#], "\(run.stderr)")
        } else {
            #expect(run.text == "one\ntwo\n", "\(run.stderr)")
        }
        #expect(run.status == 0)
    }

    @Test func theServersCloseEndsTheRunAndTextIsPrintedAsLines() throws {
        let server = try PythonWebSocketServer()
        defer { server.stop() }
        let run = try Fwcurl.runInteractive(["ws://127.0.0.1:\(server.plainPort)/close/1001/bye"], lines: [],
                                            awaiting: ["closing"])
        #expect(run.text == "closing\n", "\(run.stderr)")
        #expect(run.status == 0)
    }

    @Test func wssFollowsTheTLSOptions() throws {
        let server = try PythonWebSocketServer()
        defer { server.stop() }
        let url = "wss://127.0.0.1:\(server.tlsPort)/echo"
        let trusted = try Fwcurl.runInteractive(["--json", "--cacert", TLSFixtures.path("root-ca.pem"), url],
                                                lines: ["secret"], awaiting: [#""data": "secret""#])
        #expect(trusted.text.hasPrefix(#"{"type": "text", "data": "secret"}"#), "\(trusted.stderr)")
        #expect(trusted.status == 0)
        let untrusted = try Fwcurl.runInteractive(["--json", url], lines: [], awaiting: [#""type": "error""#])
        #expect(untrusted.text.contains(#""code": -1203"#))
        #expect(untrusted.status == 60)

        let pins = try TLSFixtures.readmePins()
        let pinned = try Fwcurl.runInteractive(["--json", "--cacert", TLSFixtures.path("root-ca.pem"),
                                                "--pinnedpubkey", pins["valid-ecdsa.pem"] ?? "", url],
                                               lines: ["pinned"], awaiting: [#""data": "pinned""#])
        #expect(pinned.status == 0, "\(pinned.stderr)")
        let mismatch = try Fwcurl.runInteractive(["--json", "-k", "--pinnedpubkey", pins["valid-rsa.pem"] ?? "", url],
                                                 lines: [], awaiting: [#""type": "error""#])
        #expect(mismatch.status == 90, "\(mismatch.stderr)")
    }
}
