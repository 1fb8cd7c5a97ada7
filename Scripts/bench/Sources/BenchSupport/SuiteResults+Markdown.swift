// MARK: - The Markdown report

extension SuiteResults {
    /// The report: `header` lines, then throughput, CPU per request, memory, the targets and any problems.
    public func markdown(header: [String]) -> String {
        var lines = header
        let apis = SuiteRow.allClients.compactMap { client -> String? in
            let names = Set(samples.values.flatMap { $0.compactMap { $0[client]?.api } }).sorted()
            return names.isEmpty ? nil : "\(client) (\(names.joined(separator: ", ")))"
        }
        if !apis.isEmpty { lines.append("- APIs driven: " + apis.joined(separator: "; ")) }
        let speedRows = rows.filter { $0.metric != .peakRSS }
        let clients = SuiteRow.allClients
        if !speedRows.isEmpty {
            lines += ["", "### Throughput (median of rounds; ratios: median of per-round ratios)", ""]
            lines += table(["Row", "Unit"] + clients + ["FW/curl", "FW/AHC"])
            for row in speedRows {
                let unit = row.metric == .requestsPerSecond ? "req/s" : "MB/s"
                let value = { (result: ClientResult) in Self.value(of: row, result) }
                lines.append(cells([row.title, unit] + clients.map { cell(row, $0, value, Format.quantity) }
                                   + ratioCells(row, value)))
            }
            lines += ["", "### Client CPU per request (µs, user + system, all threads; lower is better)", ""]
            lines += table(["Row"] + clients + ["FW/curl", "FW/AHC"])
            for row in speedRows {
                let cpu = { (result: ClientResult) in result.cpuMicrosecondsPerRequest }
                lines.append(cells([row.title] + clients.map { cell(row, $0, cpu, Format.quantity) }
                                   + ratioCells(row, cpu)))
            }
        }
        let memoryRows = rows.filter { $0.metric == .peakRSS || $0.id == "big-buffered" }
        if !memoryRows.isEmpty {
            let libraries = SuiteRow.libraryClients
            lines += ["", "### Peak RSS (MB = 10^6 bytes, `ru_maxrss` of the whole client process)", ""]
            lines += table(["Row"] + libraries + ["FW/curl", "FW/AHC"])
            let rss = { (result: ClientResult) in Double(result.peakRSSKiB) }
            let megabytes = { (kib: Double) in Format.megabytes(kib: kib) }
            for row in memoryRows {
                let values = libraries.map { cell(row, $0, rss, megabytes) }
                lines.append(cells([row.title] + values + ratioCells(row, rss)))
                guard row.metric != .peakRSS else { continue }
                let body = Double(row.bodySize) / 1024
                let ofBody = { (kib: Double) in Format.factor(kib / body) }
                lines.append(cells(["… as a multiple of the body size"] + libraries.map { cell(row, $0, rss, ofBody) }
                                   + ["", ""]))
            }
        }
        let checks = targets().filter { $0.met != nil }
        if !checks.isEmpty {
            lines += ["", "### Targets (issue 4)", ""]
            lines += table(["Target", "Measured", "Met"], numeric: false)
            for check in checks {
                lines.append(cells([check.target, check.measured, check.met == true ? "yes" : "**no**"]))
            }
        }
        if !problems.isEmpty {
            lines += ["", "### Problems", ""] + problems.map { "- \($0)" }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: Cells

    private func cell(_ row: SuiteRow, _ client: String, _ value: (ClientResult) -> Double,
                      _ format: (Double) -> String) -> String {
        guard row.clients.contains(client) else { return "" }
        return median(row, client, value).map(format) ?? "–"
    }

    private func ratioCells(_ row: SuiteRow, _ value: (ClientResult) -> Double) -> [String] {
        ["curl", "ahc"].map { other in
            medianRatio(row, "fw", over: other, value).map(Format.factor) ?? "–"
        }
    }

    /// The title row and the alignment row: the first column left, the others right when `numeric`.
    private func table(_ titles: [String], numeric: Bool = true) -> [String] {
        [cells(titles), cells(titles.indices.map { $0 == 0 || !numeric ? "---" : "---:" })]
    }

    private func cells(_ values: [String]) -> String {
        "| " + values.joined(separator: " | ") + " |"
    }
}
