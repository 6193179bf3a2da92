import Foundation
import GRDB

/// A save asked with `s`: the sheet as shown, to a file.
package struct SaveRequest: Equatable, Sendable {
    /// As typed (`~/` is the home directory).
    package var path: String
    package var format: ExportFormat
    package var plan: ExportPlan
    /// The user said `y` to replacing the file.
    package var overwrite = false
    /// Rows held in memory (the changes log's), written in place of the
    /// plan's reads: its source is never read.
    package var rows: [[DatabaseValue]]?

    package init(path: String, format: ExportFormat, plan: ExportPlan, overwrite: Bool = false) {
        self.path = path
        self.format = format
        self.plan = plan
        self.overwrite = overwrite
    }
}

/// A save on its way: the status line shows it.
package struct SaveProgress: Equatable, Sendable {
    package var request: SaveRequest
    package var rows: Int
    /// The sheet's row count when the save started, when known.
    package var total: Int?
}

extension ViewerState {
    /// `s`: the file name prompt, with the sheet's name and `.csv`.
    mutating func openSavePrompt() -> [ViewerEffect] {
        guard let table else { return [] }
        if saving != nil {
            message = .notice("a save runs: Esc stops it")
            return []
        }
        prompt = ViewerPrompt(kind: .save, text: Self.fileName(for: table.viewed.target) + ".csv")
        return []
    }

    /// Enter in the save prompt: the sheet as it is now (its filter, its
    /// sort, its shown columns), every row.
    mutating func startSave(_ typed: String, prompt: ViewerPrompt) -> [ViewerEffect] {
        let path = typed.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !path.isEmpty, let table else { return [] }
        guard let format = ExportFormat(fileName: path) else {
            // Kept, to be corrected.
            self.prompt = prompt
            message = .error("name the file .csv, .tsv, .json, .jsonl or .md")
            return []
        }
        let viewed = table.viewed
        let plan = ExportPlan(
            source: viewed.source, ordering: viewed.ordering.sortColumn == nil ? nil : viewed.ordering,
            columns: table.shownColumns)
        var request = SaveRequest(path: path, format: format, plan: plan)
        if viewed.target == .changesLog {
            request.rows = changesLog.rows(columns: plan.columns)
        }
        return save(request)
    }

    private mutating func save(_ request: SaveRequest) -> [ViewerEffect] {
        saving = SaveProgress(request: request, rows: 0, total: table?.rowCount)
        return [.save(request)]
    }

    /// The key that answers "overwrite?": `y` saves, any other keeps the file.
    mutating func answerOverwrite(_ key: Key, _ request: SaveRequest) -> [ViewerEffect] {
        overwriteQuestion = nil
        guard key == .character("y") else {
            message = .notice("not saved: \(RowDetail.oneLine(request.path)) is kept")
            return []
        }
        message = nil
        var request = request
        request.overwrite = true
        return save(request)
    }

    /// Esc while saving: nothing is left of the file being written.
    mutating func stopSaving() -> [ViewerEffect] {
        saving = nil
        message = .notice("save stopped: no file written")
        return [.stopSaving]
    }

    mutating func saveProgressed(rows: Int) -> [ViewerEffect] {
        saving?.rows = rows
        return []
    }

    mutating func saveNeedsConfirmation(_ request: SaveRequest) -> [ViewerEffect] {
        guard saving?.request == request else { return [] }
        saving = nil
        overwriteQuestion = request
        message = .notice("\(RowDetail.oneLine(request.path)) exists: y replaces it, any other key keeps it")
        return []
    }

    mutating func saved(_ request: SaveRequest, _ summary: RowExport.Summary) -> [ViewerEffect] {
        guard saving?.request == request else { return [] }
        saving = nil
        let rows = summary.rowCount == 1 ? "1 row" : "\(grouped(summary.rowCount)) rows"
        let text = "saved \(rows) to \(RowDetail.oneLine(request.path))"
        message = .notice(summary.warning.map { text + "; " + $0 } ?? text)
        return []
    }

    mutating func saveFailed(_ error: String) -> [ViewerEffect] {
        guard saving != nil else { return [] }
        saving = nil
        message = .error(RowDetail.oneLine(error))
        return []
    }

    /// A file name from the sheet's: `orders`, `query`, `status_frequency`.
    static func fileName(for target: ViewerTarget) -> String {
        let name: String
        switch target {
        case let .table(table): name = table
        case .query: name = "query"
        case let .sheet(sheet): name = sheet.name
        case .changesLog: name = "changes"
        }
        var result = ""
        for scalar in name.unicodeScalars {
            let kept = CharacterSet.alphanumerics.contains(scalar) || scalar == "-" || scalar == "_" || scalar == "."
            if kept {
                result.unicodeScalars.append(scalar)
            } else if !result.hasSuffix("_") {
                result += "_"
            }
        }
        let trimmed = result.trimmingCharacters(in: CharacterSet(charactersIn: "_."))
        return trimmed.isEmpty ? "sheet" : String(trimmed.prefix(100))
    }
}

extension SaveProgress {
    /// "saving orders.csv: 120,000 of 2,000,000 rows · Esc stops".
    var statusText: String {
        let written = grouped(rows)
        let count = total.map { "\(written) of \(grouped($0)) rows" } ?? "\(written) rows"
        return "saving \(RowDetail.oneLine(request.path)): \(count) · Esc stops"
    }
}
