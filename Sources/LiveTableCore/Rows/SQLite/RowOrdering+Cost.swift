import GRDB

extension RowOrdering {
    // MARK: - Cost (SQLite only)

    /// Whether a window in this order costs an index search or a scan,
    /// from SQLite's query plans of the statements a window runs.
    ///
    /// SQLite only (`EXPLAIN QUERY PLAN`): a second database tells the
    /// cost by its own means.
    package func cost(of source: RowSource, in db: Database) throws -> WindowCost {
        // Any non-NULL key gives the shapes of the statements (`> ?`,
        // `IS ?`); the plan does not depend on the values.
        let key = keyColumns.map { _ in DatabaseValue(value: 0 as Int64)! }
        for range in after(key) + before(key) {
            let sql = source.selectSQL(
                extra: keyColumns.map(\.expression), indexedBy: indexName, where: range.condition,
                orderBy: orderBy(forward: range.forward), limit: true)
            let details = try Row.fetchAll(
                db, sql: "EXPLAIN QUERY PLAN " + sql,
                arguments: StatementArguments(range.arguments + [DatabaseValue(value: 1 as Int64)!]))
                .map { (($0["detail"] as String?) ?? "").uppercased() }
            if Self.isScan(plan: details) {
                return .scan
            }
        }
        return .indexSearch
    }

    /// Whether a query plan (the `detail` lines of `EXPLAIN QUERY PLAN`,
    /// uppercased) reads a number of rows that grows with the table, under
    /// a `LIMIT`: a scan (`SCAN t`), or a sort of all the rows that a range
    /// search found (`USE TEMP B-TREE FOR ORDER BY` after `SEARCH t USING
    /// INDEX i (x>?)`).
    ///
    /// A temporary B-tree is not always a scan:
    /// - a sort of the right part of the order (`… FOR RIGHT PART OF ORDER
    ///   BY`, `… FOR LAST TERM OF ORDER BY`) sorts the rows of one value of
    ///   the left part at a time, along an index walk that stops at the
    ///   limit;
    /// - a sort after searches by equality only (`(x=?)`) sorts the rows of
    ///   one key: one row of a unique index, or its NULLs.
    static func isScan(plan: [String]) -> Bool {
        let searches = plan.filter { $0.hasPrefix("SEARCH") }
        let searchesByEquality = !searches.isEmpty && searches.allSatisfy { line in
            guard let open = line.lastIndex(of: "(") else { return false }
            let constraints = line[open...]
            return !constraints.contains(">") && !constraints.contains("<")
        }
        return plan.contains { line in
            if line.hasPrefix("SCAN") { return true }
            guard line.contains("TEMP B-TREE") else { return false }
            if line.contains("RIGHT PART OF ORDER BY") || line.contains("LAST TERM OF ORDER BY") { return false }
            return !searchesByEquality
        }
    }
}
