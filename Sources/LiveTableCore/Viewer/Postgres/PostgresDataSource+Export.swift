import Foundation
import PostgresClient

// MARK: - Export

extension PostgresDataSource {
    /// In constant memory: one statement in libpq's single-row mode, each
    /// value encoded in place by SQLite's export encoder. Values as
    /// PostgreSQL prints them, but in JSON as JSON's own types where it has
    /// them. No statement timeout: an export to a slow pipe takes its time,
    /// and sees one snapshot.
    package func export(
        _ plan: ExportPlan, format: ExportFormat, ticket: ReadTicket,
        write: (UnsafeRawBufferPointer, Int) throws -> Void
    ) throws -> RowExport.Summary
    {
        try withoutActuallyEscaping(write) { write in
            let source = plan.source
            var output = ExportOutput(ticket: ticket, write: write)
            var encoder = RowEncoder(format: format, columnNames: plan.columnNames)
            try output.flush(encoder.header().utf8, rows: 0)
            let sql: String
            if source.isQuery, source.filter == nil, plan.ordering == nil, let query = source.querySQL {
                sql = query
            } else {
                let ordering = try plan.ordering ?? RowOrdering(source)
                let ownOrder = source.isQuery && plan.ordering == nil
                sql = source.selectSQL(where: nil, orderBy: ownOrder ? nil : ordering.orderBy(forward: true), limit: false)
            }
            let columns = plan.columns
            try background.read(ticket: ticket, statementTimeout: 0, typedSQL: source.holdsTypedSQL) { reader in
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
