import FWHTTP
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// fwget: one URL through FWHTTP, with fwcurl's exit codes and its one-URL `--json` object. See README.md.

let options: Options
do throws(Options.UsageError) {
    options = try Options(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
    if !error.message.isEmpty { Output.error("fwget: \(error.message)") }
    Output.error(Options.usage)
    exit(error.message.isEmpty ? 0 : 2)
}
exit(Fetch(options: options).run())
