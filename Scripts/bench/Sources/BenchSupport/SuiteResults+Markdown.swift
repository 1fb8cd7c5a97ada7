// MARK: - The Markdown report

extension SuiteResults {
    /// The report: `header` lines, then throughput, CPU per request, memory, TLS sessions, the targets,
    /// what was not applicable and any problems.
    public func markdown(header: [String]) -> String {
        var lines = header
        let apis = SuiteRow.allClients.compactMap { client -> String? in
            // The baseline row's runs make no request and drive no API ("none").
            let names = Set(samples.values.flatMap { $0.compactMap { $0[client]?.api } }).subtracting(["none"]).sorted()
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
        let memoryRows = rows.filter { $0.metric == .peakRSS || Self.memoryRowIDs.contains($0.id) }
        if !memoryRows.isEmpty {
            let libraries = SuiteRow.libraryClients
            lines += ["", "### Peak RSS (MB = 10^6 bytes, `ru_maxrss` of the whole client process)", ""]
            lines += table(["Row"] + libraries + ["FW/curl", "FW/AHC"])
            let rss = { (result: ClientResult) in Double(result.peakRSSKiB) }
            let megabytes = { (kib: Double) in Format.megabytes(kib: kib) }
            for row in memoryRows {
                let values = libraries.map { cell(row, $0, rss, megabytes) }
                lines.append(cells([row.title] + values + ratioCells(row, rss)))
                if row.id != Self.baselineRowID, row.metric == .peakRSS || Self.bodyFactorRowIDs.contains(row.id),
                   self.row(Self.baselineRowID) != nil {
                    let growth = libraries.map { client in
                        growthOverBaseline(row, client).map { megabytes($0) } ?? (row.clients.contains(client) ? "–" : "")
                    }
                    lines.append(cells(["… growth over the client's baseline"] + growth + ["", ""]))
                }
                guard Self.bodyFactorRowIDs.contains(row.id) else { continue }
                let body = Double(row.bodySize) / 1024
                let ofBody = { (kib: Double) in Format.factor(kib / body) }
                lines.append(cells(["… as a multiple of the body size"] + libraries.map { cell(row, $0, rss, ofBody) }
                                   + ["", ""]))
            }
        }
        lines += sessionLines()
        let checks = targets().filter { $0.met != nil }
        if !checks.isEmpty {
            lines += ["", "### Targets (issue 17; file rows: issue 6)", ""]
            lines += table(["Target", "Measured", "Met"], numeric: false)
            for check in checks {
                lines.append(cells([check.target, check.measured, check.met == true ? "yes" : "**no**"]))
            }
        }
        let skipped = notApplicableLines()
        if !skipped.isEmpty {
            lines += ["", "### Not applicable (n/a)", ""] + skipped
        }
        if !problems.isEmpty {
            lines += ["", "### Problems", ""] + problems.map { "- \($0)" }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Rows in the memory table besides the peak-RSS rows.
    static let memoryRowIDs: Set = ["big-buffered", "file-download", "file-upload"]
    /// Memory rows whose body is kept in memory, so their RSS is also shown as a multiple of it.
    static let bodyFactorRowIDs: Set = ["big-buffered"]

    /// One line per client and reason, naming the rows it covers: `- foundation (row, row): reason`.
    private func notApplicableLines() -> [String] {
        var groups: [(client: String, reason: String, rowIDs: [String])] = []
        for row in rows {
            for (client, reason) in (notApplicable[row.id] ?? [:]).sorted(by: { $0.key < $1.key }) {
                if let index = groups.firstIndex(where: { $0.client == client && $0.reason == reason }) {
                    groups[index].rowIDs.append(row.id)
                } else {
                    groups.append((client, reason, [row.id]))
                }
            }
        }
        return groups.map { "- \($0.client) (\($0.rowIDs.joined(separator: ", "))): \($0.reason)" }
    }

    // MARK: TLS sessions

    /// The new-connection HTTPS rows: the share of resumed sessions nginx saw per client, and each
    /// client's resumed rate against its full-handshake rate on the same server.
    private func sessionLines() -> [String] {
        let logged = rows.filter { $0.server.logsSessions }
        guard !logged.isEmpty else { return [] }
        var lines = ["", "### TLS sessions on the new-connection rows (nginx's `$ssl_session_reused`, all rounds)", ""]
        lines += table(["Row"] + SuiteRow.allClients)
        for row in logged {
            let shares = SuiteRow.allClients.map { client -> String in
                guard row.clients.contains(client) else { return "" }
                guard let tally = sessionTotal(row, client), tally.total > 0 else { return "–" }
                return "\(tally.percentage) of \(Format.quantity(Double(tally.total)))"
            }
            lines.append(cells([row.title] + shares))
        }
        let requests = { (result: ClientResult) in result.requestsPerSecond }
        for resumed in logged where resumed.tlsResumption == true {
            guard let full = logged.first(where: { $0.server == resumed.server && $0.tlsResumption == false }) else {
                continue
            }
            let rates = SuiteRow.allClients.compactMap { client -> String? in
                guard let rate = median(resumed, client, requests) else { return nil }
                let factor = median(full, client, requests).map { " (\(Format.factor(rate / $0)) its full handshakes)" }
                return "\(client) \(Format.quantity(rate)) req/s\(factor ?? "")"
            }
            guard !rates.isEmpty else { continue }
            lines.append("")
            lines.append("\(resumed.title): " + rates.joined(separator: ", "))
        }
        return lines
    }

    // MARK: Cells

    private func cell(_ row: SuiteRow, _ client: String, _ value: (ClientResult) -> Double,
                      _ format: (Double) -> String) -> String {
        guard row.clients.contains(client) else { return "" }
        if let median = median(row, client, value) { return format(median) }
        return notApplicable[row.id]?[client] == nil ? "–" : "n/a"
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
