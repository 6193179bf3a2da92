import Foundation
import PostgresClient

// MARK: - Export

extension PostgresDataSource {
    /// In constant memory. CSV is PostgreSQL's own `COPY (…) TO STDOUT`,
    /// as fast as psql's; the other formats are one statement in libpq's
    /// single-row mode, each value encoded in place by SQLite's export
    /// encoder. Values as PostgreSQL prints them, but in JSON as JSON's own
    /// types where it has them. No statement timeout: an export to a slow
    /// pipe takes its time, and sees one snapshot.
    package func export(
        _ plan: ExportPlan, format: ExportFormat, ticket: ReadTicket,
        write: (UnsafeRawBufferPointer, Int) throws -> Void
    ) throws -> RowExport.Summary
    {
        try withoutActuallyEscaping(write) { write in
            var output = ExportOutput(ticket: ticket, write: write)
            var encoder = RowEncoder(format: format, columnNames: plan.columnNames)
            try output.flush(encoder.header().utf8, rows: 0)
            if format == .csv {
                let rows = try copyCSV(Self.exportSQL(plan, columns: plan.columns), plan, ticket: ticket, into: &output)
                return RowExport.Summary(rowCount: rows, invalidTextCount: 0)
            }
            let sql = try Self.exportSQL(plan, columns: nil)
            let columns = plan.columns
            try background.read(ticket: ticket, statementTimeout: 0, typedSQL: plan.source.holdsTypedSQL) { reader in
                var kinds: [ExportedKind] = []
                try reader.connection.forEachRow(sql, [], timeout: reader.answerTimeout, columns: { columns in
                    kinds = columns.map { ExportedKind(type: $0.typeOID, format: format) }
                }) { row in
                    encoder.beginRecord(into: &output.bytes)
                    for (position, column) in columns.enumerated() where column < kinds.count {
                        Self.read(row, column, kinds[column]) { value in
                            encoder.appendField(value, column: position, into: &output.bytes)
                        }
                    }
                    encoder.endRecord(into: &output.bytes)
                    if output.bytes.count >= RowExport.bufferSize {
                        try output.flush(rows: encoder.recordCount)
                    }
                    return true
                }
            }
            try output.flush(encoder.footer().utf8, rows: encoder.recordCount)
            return RowExport.Summary(rowCount: encoder.recordCount, invalidTextCount: encoder.invalidTextCount)
        }
    }

    /// The plan's rows in its order; `columns` (indices of the source's)
    /// selected, or all of them when nil.
    private static func exportSQL(_ plan: ExportPlan, columns: [Int]?) throws -> String {
        let source = plan.source
        let all = columns == nil || columns == Array(source.columns.indices)
        if all, source.isQuery, source.filter == nil, plan.ordering == nil, let query = source.querySQL {
            return query
        }
        let ordering = try plan.ordering ?? RowOrdering(source)
        let ownOrder = source.isQuery && plan.ordering == nil
        let expressions = columns.map { $0.map { source.columnExpressions[$0] } } ?? source.columnExpressions
        return source.selectSQL(
            columns: expressions, where: nil, orderBy: ownOrder ? nil : ordering.orderBy(forward: true), limit: false)
    }

    /// `sql`'s rows as COPY writes CSV (RFC 4180: NULL an empty field,
    /// empty text `""`), in the export's read-only transaction. The header
    /// is the encoder's, from the plan's names. Returns the rows written.
    private func copyCSV(
        _ sql: String, _ plan: ExportPlan, ticket: ReadTicket, into output: inout ExportOutput) throws -> Int
    {
        var rows = 0
        // A `--` comment that ends the query ends with its line.
        let copy = "COPY (\n\(sql)\n) TO STDOUT WITH (FORMAT csv)"
        try background.read(ticket: ticket, statementTimeout: 0, typedSQL: plan.source.holdsTypedSQL) { reader in
            try reader.connection.copyOut(copy, timeout: reader.answerTimeout) { row in
                // COPY ends a row with LF where RFC 4180, and the SQLite
                // export, end it with CRLF: `--format csv` is the same for
                // both. Only the row's last byte is its end: a line break
                // inside a quoted value stays as stored.
                if row.last == 10 {
                    output.bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: row.dropLast()))
                    output.bytes.append(contentsOf: [13, 10])
                } else {
                    output.bytes.append(contentsOf: row)
                }
                rows += 1
                if output.bytes.count >= RowExport.bufferSize {
                    try output.flush(rows: rows)
                }
            }
        }
        try output.flush(rows: rows)
        return rows
    }

    private static func read(_ row: PostgresRow, _ column: Int, _ kind: ExportedKind, _ body: (StoredValue) -> Void) {
        if row.isNull(column: column) {
            body(.null)
            return
        }
        row.withBytes(column: column) { bytes in
            switch kind {
            case .text:
                body(.text(bytes))
            case .integer:
                if let integer = Int64(String(decoding: bytes, as: UTF8.self)) { body(.integer(integer)) } else { body(.text(bytes)) }
            case .number:
                // NaN and the infinities are no JSON numbers: strings.
                body(RowEncoder.isJSONNumber(bytes) ? .json(bytes) : .text(bytes))
            case .boolean:
                let word = bytes.first == UInt8(ascii: "t") ? Self.jsonTrue : Self.jsonFalse
                word.withUnsafeBytes { body(.json($0)) }
            case .json:
                body(.json(bytes))
            }
        }
    }

    private static let jsonTrue = Array("true".utf8)
    private static let jsonFalse = Array("false".utf8)
}

private enum ExportedKind {
    case text
    case integer
    case number
    case boolean
    case json

    private static let numericTypes: Set<UInt32> = [1700, 700, 701]
    private static let booleanType: UInt32 = 16
    private static let jsonTypes: Set<UInt32> = [114, 3802]

    init(type: UInt32, format: ExportFormat) {
        guard format.isJSON else {
            self = .text
            return
        }
        if PostgresValues.integerTypes.contains(type) {
            self = .integer
        } else if Self.numericTypes.contains(type) {
            self = .number
        } else if type == Self.booleanType {
            self = .boolean
        } else if Self.jsonTypes.contains(type) {
            self = .json
        } else {
            self = .text
        }
    }
}
