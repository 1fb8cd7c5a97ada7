import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import TestSupport

// MARK: - Fwcurl

/// The fwcurl binary next to the test bundle (`swift build --build-tests` builds both), run as a user
/// runs it: a subprocess with its output captured.
enum Fwcurl {
    /// What one run printed and how it exited.
    struct Run {
        var status: Int32
        var stdout: Data
        var stderr: String
        var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: stdout)) as? [String: Any] }
        var text: String { String(decoding: stdout, as: UTF8.self) }
    }

    private static var binary: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("fwcurl")
    }

    /// Runs fwcurl with stdout and stderr on pipes (so no progress meter); killed after `timeout` seconds.
    /// `environment`, when given, replaces the proxy variables of this process's environment. `input`, when
    /// given, is all of standard input (written at once, then closed: `printf INPUT | fwcurl ...`).
    static func run(_ arguments: [String], timeout: Double = 30, environment: [String: String]? = nil,
                    input: String? = nil) throws -> Run {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        if let environment {
            let proxyVariables = ["http_proxy", "https_proxy", "all_proxy", "no_proxy", "REQUEST_METHOD"]
            var inherited = ProcessInfo.processInfo.environment
            for name in proxyVariables { inherited[name] = nil; inherited[name.uppercased()] = nil }
            process.environment = inherited.merging(environment) { $1 }
        }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let stdin = Pipe()
        if input != nil { process.standardInput = stdin }
        try process.run()
        if let input {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try stdin.fileHandleForWriting.close()
        }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        let finished = waitUntil(timeout: timeout) { !process.isRunning }
        if !finished { process.terminate() }
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: stdout, stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// Runs fwcurl with stderr on a pseudo-terminal (stdout discarded); returns the exit status and
    /// everything the terminal received (the line discipline turns "\n" into "\r\n"). `environment` is
    /// added to this process's.
    static func runOnTerminal(_ arguments: [String], timeout: Double = 30, environment: [String: String] = [:])
        throws -> (status: Int32, terminal: String) {
        var master: Int32 = -1, slave: Int32 = -1
        guard openpty(&master, &slave, nil, nil, nil) == 0 else {
            throw TestSupportError.systemCall("openpty", errno: errno)
        }
        defer { close(master) }
        _ = fcntl(master, F_SETFD, FD_CLOEXEC)
        _ = fcntl(slave, F_SETFD, FD_CLOEXEC)
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
        do {
            try process.run()
            close(slave)
        } catch {
            close(slave)
            throw error
        }
        // Read while it runs, and what is left once it exited (then a quiet poll ends the loop even if
        // another test's child inherited the terminal before close-on-exec was set).
        var received = Data()
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            let exited = !process.isRunning
            var entry = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 100) > 0 else {
                if exited { break } else { continue }
            }
            let count = read(master, &buffer, buffer.count)
            guard count > 0 else { break }
            received.append(contentsOf: buffer[..<count])
        }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: received, as: UTF8.self))
    }

    /// Runs fwcurl with `lines` written to its standard input, which stays open until its stdout contains
    /// every string of `awaiting` (bounded by `timeout`); then closes the input and collects the rest.
    static func runInteractive(_ arguments: [String], lines: [String], awaiting: [String], timeout: Double = 30)
        throws -> Run {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let input = Pipe(), out = Pipe(), err = Pipe()
        process.standardInput = input
        process.standardOutput = out
        process.standardError = err
        try process.run()
        input.fileHandleForWriting.write(Data(lines.map { $0 + "\n" }.joined().utf8))
        var received = Data()
        let descriptor = out.fileHandleForReading.fileDescriptor
        var buffer = [UInt8](repeating: 0, count: 4096)
        _ = waitUntil(timeout: timeout) {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            if poll(&entry, 1, 20) > 0 {
                let count = read(descriptor, &buffer, buffer.count)
                if count > 0 { received.append(contentsOf: buffer[..<count]) }
            }
            let text = String(decoding: received, as: UTF8.self)
            return awaiting.allSatisfy(text.contains) || !process.isRunning
        }
        try input.fileHandleForWriting.close()
        received.append(out.fileHandleForReading.readDataToEndOfFile())
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        if !waitUntil(timeout: timeout, { !process.isRunning }) { process.terminate() }
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: received, stderr: String(decoding: stderr, as: UTF8.self))
    }
}
