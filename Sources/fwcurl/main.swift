import Foundation

// fwcurl: a curl-like client on FWNetworking. `fwcurl demo` runs the guided tour.

let arguments = Array(CommandLine.arguments.dropFirst())
let status: Int32
if arguments == ["demo"] {
    do {
        var demo = try Demo()
        status = await demo.run()
    } catch {
        Terminal.error("fwcurl demo: cannot start the loopback server: \(error)")
        status = 2
    }
} else if arguments.isEmpty || arguments == ["-h"] || arguments == ["--help"] {
    print(Options.usage)
    status = arguments.isEmpty ? ExitCode.usage : 0
} else {
    do {
        status = await fetch(try Options(arguments: arguments))
    } catch {
        Terminal.error("fwcurl: \(error)\n\(Options.usage)")
        status = ExitCode.usage
    }
}
exit(status)
