import Foundation

extension PostgresDataSource {
    /// The planner's estimate of a table's rows (`pg_class.reltuples`, as
    /// of its last `ANALYZE` or `VACUUM`), on the background connection:
    /// the title shows it (`~N`) while the exact `count(*)`, which scans
    /// the table, runs. None for a query or a filter, whose rows are not
    /// the table's, nor for a table never analysed (`reltuples` -1).
    public func estimatedRowCount(of source: RowSource, ticket: ReadTicket) throws -> Int? {
        // Nothing to read for a query or a filter: no transaction for it.
        guard !source.isQuery, source.filter == nil else { return nil }
        return try background.read(ticket: ticket) { reader in
            try Self.estimatedRowCount(of: source, reader)?.value
        }
    }
}
