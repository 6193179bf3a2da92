import Foundation

extension PostgresDataSource {
    /// For the title while the exact `count(*)` scans; nil for a query or a
    /// filter, and for a table never analysed.
    package func estimatedRowCount(of source: RowSource, ticket: ReadTicket) throws -> Int? {
        guard !source.isQuery, source.filter == nil else { return nil }
        firstScreen.wait()
        return try background.read(ticket: ticket) { reader in
            try Self.estimatedRowCount(of: source, reader)?.value
        }
    }
}
