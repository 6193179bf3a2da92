import Foundation
import GRDB

/// A save of a sheet (`s`).
enum ViewerSaveJob {
    /// The save as messages: `.saveProgressed` every 0.1 s while it
    /// writes, then `.saved`, `.saveNeedsConfirmation` or `.saveFailed`. A
    /// cancel abandons its ticket: the read stops, the export throws, and
    /// `SheetFile` removes what it wrote.
    static func job(_ request: SaveRequest, _ dataSource: any ViewerDataSource, queue: DispatchQueue) -> NewestMessageJob {
        NewestMessageJob(queue: queue) { context in
            guard let ticket = context.nextTicket(timeLimit: nil) else { return }
            if let last = run(request, dataSource, ticket: ticket, report: context.send) {
                context.send(last)
            }
        }
    }

    /// What the queue runs: the whole save, reporting through `report`.
    /// Nil when it was stopped.
    static func run(
        _ request: SaveRequest, _ dataSource: any ViewerDataSource, ticket: ReadTicket,
        report: (ViewerMessage) -> Void) -> ViewerMessage?
    {
        let file = SheetFile(path: request.path)
        if let viewed = dataSource.viewedFile, file.isSameFile(as: viewed) {
            // Never written, even after `y`: the viewer does not modify what it views.
            return .saveFailed("not saved: \(request.path.escapingControlCharacters) is the database being viewed")
        }
        if !request.overwrite, file.exists {
            return .saveNeedsConfirmation(request)
        }
        var lastReport = ContinuousClock.now
        do {
            let summary = try file.write(overwrite: request.overwrite) { append in
                if let rows = request.rows {
                    return try writeHeld(rows, request, append)
                }
                return try dataSource.export(request.plan, format: request.format, ticket: ticket) { bytes, rows in
                    try append(bytes)
                    if ContinuousClock.now - lastReport >= .milliseconds(100) {
                        report(.saveProgressed(rows: rows))
                        lastReport = .now
                    }
                }
            }
            return .saved(request, summary)
        } catch SheetFile.Failure.exists {
            return .saveNeedsConfirmation(request)
        } catch {
            if ticket.shouldStop { return nil }
            return .saveFailed(error is SheetFile.Failure ? "\(error)" : "not saved: " + dataSource.describe(error))
        }
    }

    /// Rows held in memory, through the encoder of every export.
    private static func writeHeld(
        _ rows: [[DatabaseValue]], _ request: SaveRequest, _ append: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> RowExport.Summary {
        var encoder = RowEncoder(format: request.format, columnNames: request.plan.columnNames)
        var text = encoder.header()
        for row in rows {
            text += encoder.record(row)
        }
        text += encoder.footer()
        try Array(text.utf8).withUnsafeBytes { try append($0) }
        return RowExport.Summary(rowCount: rows.count, invalidTextCount: encoder.invalidTextCount)
    }
}
