import Foundation
import GRDB
import PostgresClient

// MARK: - Reads

extension PostgresDataSource: ViewerDataSource {
    package func listTables(ticket: ReadTicket) throws -> [(name: String, kind: TableSchema.Kind)] {
        try background.read(ticket: ticket) { reader in
            try Self.relations(reader, sql: Self.listSQL).map { ($0.displayName, $0.kind) }
        }
    }

    /// The planner's estimate (`reltuples`, as of the last `ANALYZE`) for a
    /// big table; counted up to `quickCountLimit` otherwise (a table never
    /// analysed, a view), so that a small table shows its exact count.
    package func quickRowCount(ofTable name: String, kind: TableSchema.Kind, ticket: ReadTicket) throws -> RowCount {
        try background.read(ticket: ticket) { reader in
            let relation = try Self.relation(named: name, reader)
            let limit = RowSource.quickCountLimit
            if relation.relkind != "v", relation.relkind != "f" {
                let estimate = try reader.execute(
                    "SELECT reltuples::bigint FROM pg_catalog.pg_class WHERE oid = $1::oid", [relation.oid])
                    .rows.first?.first?.flatMap { Int($0) } ?? -1
                if estimate >= limit { return .estimated(estimate) }
            }
            let counted = try reader.fetchInt(
                "SELECT count(*) FROM (SELECT 1 FROM \(relation.quotedName) LIMIT \(limit)) AS \"rows\"",
                arguments: []) ?? 0
            return counted < limit ? .exact(counted) : .atLeast(limit)
        }
    }

    package func open(_ target: ViewerTarget, sortColumn: String?, descending: Bool, ticket: ReadTicket) throws -> ViewedSource {
        let typedSQL = if case .query = target { true } else { false }
        let start = ContinuousClock.now
        let viewed = try screen.read(ticket: ticket, typedSQL: typedSQL) { reader in
            try Self.open(target, sortColumn: sortColumn, descending: descending, filter: nil, reader)
        }
        // The catalog was just read: the first window needs no check.
        if !viewed.source.isQuery { schemaChecks.opened(viewed, at: start) }
        return viewed
    }

    /// One `count(*)` under the statement timeout: MVCC keeps no writer
    /// waiting. Paced by its own cost (`PostgresCountPacing`): asked again
    /// too soon, the last count moved by the inserts and deletes since.
    package func countRows(of source: RowSource, ticket: ReadTicket) throws -> RowCount {
        firstScreen.wait()
        return try background.read(ticket: ticket, typedSQL: source.holdsTypedSQL) { reader in
            let net = try Self.netInserts(of: source, reader)
            if let estimate = countPacing.estimate(of: .total(source), netInserts: net) {
                return .estimated(estimate)
            }
            let (count, seconds) = try Self.timedCount(reader) { try source.exactRowCount(reader) }
            countPacing.counted(.total(source), count, netInserts: net, seconds: seconds)
            return .exact(count)
        }
    }

    /// One read, paced as `countRows(of:ticket:)`.
    package func countRows(of viewed: ViewedSource, before position: RowPosition, ticket: ReadTicket) throws -> RowCount {
        try background.read(ticket: ticket, typedSQL: viewed.source.holdsTypedSQL) { reader in
            if let estimate = countPacing.estimate(of: .before(viewed, position), netInserts: nil) {
                return .estimated(estimate)
            }
            let (count, seconds) = try Self.timedCount(reader) {
                try viewed.ordering.countRows(reader, in: viewed.source, before: position)
            }
            countPacing.counted(.before(viewed, position), count, netInserts: nil, seconds: seconds)
            return .exact(count)
        }
    }

    /// Without parallel workers: the pacing measures time, so a count must
    /// take one server core.
    static func timedCount(
        _ reader: PostgresReader, _ count: () throws -> Int) throws -> (count: Int, seconds: TimeInterval)
    {
        _ = try reader.execute("SET LOCAL max_parallel_workers_per_gather = 0")
        let start = ContinuousClock.now
        let counted = try count()
        return (counted, (ContinuousClock.now - start).timeInterval)
    }

    /// As the server's statistics tell now (flushed at most once a second);
    /// nil where they tell nothing (a query, a view, a filter, a partitioned
    /// table). Rolled-back inserts count too: the estimate drifts up until
    /// the next exact count.
    static func netInserts(of source: RowSource, _ reader: PostgresReader) throws -> Int? {
        guard !source.isQuery, source.filter == nil else { return nil }
        return try reader.fetchInt(
            "SELECT pg_catalog.pg_stat_get_tuples_inserted(c.oid) - pg_catalog.pg_stat_get_tuples_deleted(c.oid) "
                + "FROM pg_catalog.pg_class c WHERE c.oid = to_regclass($1) AND c.relkind IN ('r', 'm')",
            arguments: [source.from.databaseValue])
    }

    package func search(_ search: RowSearch, in viewed: ViewedSource, ticket: ReadTicket) throws -> RowSearchResult {
        try background.read(ticket: ticket, typedSQL: viewed.source.holdsTypedSQL) { reader in try search.run(reader, viewed.source, viewed.ordering) }
    }

    /// The server compiles the filter (`EXPLAIN`) and runs it on a first row,
    /// where the read-only transaction refuses one that writes
    /// (`nextval('s') > 0`). When the plan scans, each update scans the table.
    package func filter(
        _ viewed: ViewedSource, by expression: String?, ticket: ReadTicket
    ) throws -> (viewed: ViewedSource, scannedRows: RowCount?)
    {
        if let expression, Self.hasParameter(expression) {
            throw SourceError.invalidFilter(reason: Self.parameterProblem)
        }
        let filtered = try viewed.source.applyingFilter(expression)
        return try background.read(ticket: ticket, typedSQL: filtered.holdsTypedSQL) { reader in
            guard filtered.filter != nil else {
                let cost = try Self.cost(of: viewed.ordering, in: filtered, reader)
                return (viewed.replacing(source: filtered, cost: cost), nil)
            }
            let plan: [String]
            do {
                let select = filtered.selectSQL(columns: ["1"], where: nil)
                plan = try Self.plan(of: select, arguments: [], reader)
                // Run for a quarter of a second at most: what only running
                // tells (a write refused, a division by zero) is said now.
                _ = try reader.execute("SAVEPOINT \"filter\"")
                do {
                    _ = try reader.execute("SET LOCAL statement_timeout = 250")
                    _ = try reader.execute(select + " LIMIT 1")
                } catch let error as PostgresError where error.kind == .timeout {
                    _ = try reader.execute("ROLLBACK TO SAVEPOINT \"filter\"")
                }
            } catch let error as PostgresError where error.kind == .query {
                throw SourceError.invalidFilter(reason: error.message)
            }
            let cost = try Self.cost(of: viewed.ordering, in: filtered, reader)
            let viewed = viewed.replacing(source: filtered, cost: cost)
            guard plan.contains(where: { $0.contains("Seq Scan") }) else { return (viewed, nil) }
            return (viewed, try Self.estimatedRowCount(of: filtered, reader))
        }
    }

    package func missingRows(of source: RowSource, among keys: [StoredKey], ticket: ReadTicket) throws -> [StoredKey] {
        guard let lookup = source.identityLookup else { return [] }
        return try screen.read(ticket: ticket, typedSQL: source.holdsTypedSQL) { reader in
            try lookup.missing(reader, among: keys.map(\.values)).map(StoredKey.init)
        }
    }

    /// The windows cut long values (`PostgresDataSource.cut`).
    package func wholeRow(of viewed: ViewedSource, at position: RowPosition, ticket: ReadTicket) throws -> [DatabaseValue]? {
        guard viewed.source.shownExpressions != nil else { return nil }
        var source = viewed.source
        source.shownExpressions = nil
        return try screen.read(ticket: ticket, typedSQL: viewed.source.holdsTypedSQL) { reader in
            let request = RowWindowRequest(ordering: viewed.ordering, anchor: .position(position), before: 0, after: 1)
            let window = try RowWindow.fetch(reader, source, request)
            return window.positions.first == position ? window.rows.first : nil
        }
    }

    // MARK: - Errors

    package func describe(_ error: any Error) -> String {
        switch error {
        case let error as SourceError:
            if case let .noSuchTable(name, tables) = error, tables.isEmpty {
                return "no table or view \"\(name.escapingControlCharacters)\": the database has none that the role may read"
            }
            return error.description.replacingOccurrences(of: ": the file has ", with: ": the database has ")
        case let error as PostgresError:
            switch error.kind {
            case .timeout:
                return "timed out after \(Self.seconds(settings.statementTimeout)) (statement_timeout)"
            case .canceled:
                return "canceled"
            case .connection:
                return "\(name): \(error.message.escapingControlCharacters)"
            default:
                return error.message.escapingControlCharacters
            }
        default:
            return error.oneLineDescription
        }
    }

    /// Transient: the server gone, restarting or ending the session, a
    /// recovery conflict, a password refused, and permission denied: a GRANT
    /// ends it, and a GRANT is a commit that the watch sees, so the window
    /// comes back by itself (an error that ended the observation would stay
    /// `not live` until a key, the schema being unchanged).
    package func failureKind(of error: any Error) -> ViewerFailureKind {
        switch error {
        case let error as SourceError:
            switch error {
            case .noSuchTable, .noSuchColumn, .invalidQuery: return .missingSource
            default: return .other
            }
        case let error as PostgresError:
            if error.kind == .connection || error.kind == .authentication { return .transient }
            switch error.sqlState {
            case "40001", "40P01", "55P03", "57P01", "57P02", "57P03", "57P05", "42501": return .transient
            case "42P01", "42703": return .missingSource
            default: return .other
            }
        default:
            return .other
        }
    }

    static func seconds(_ seconds: TimeInterval) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }
}

// MARK: - Opening

extension PostgresDataSource {
    /// `known`: the schema version this read already has for a relation, not
    /// read again.
    static func open(
        _ target: ViewerTarget, sortColumn: String?, descending: Bool, filter: String?,
        _ reader: PostgresReader, known: (relation: String, version: Int)? = nil) throws -> ViewedSource
    {
        var source: RowSource
        var version = 0
        switch target {
        case let .table(name):
            let relation = try relation(named: name, reader)
            source = try Self.source(of: relation, reader)
            if let known, known.relation == relation.quotedName {
                version = known.version
            } else {
                version = try schemaVersion(of: relation, reader)
            }
        case let .query(sql):
            source = try query(sql, reader)
        case let .sheet(sheet):
            source = try query(try sheet.postgresStatement(reader), reader).keyed(by: sheet)
        case .changesLog:
            throw SourceError.unreadableTable(name: "changes log", reason: "it is held in memory")
        }
        source = try source.applyingFilter(filter)
        let ordering = try RowOrdering(source, sortColumn: sortColumn, descending: descending)
        return ViewedSource(
            target: target, source: source, ordering: ordering, cost: try cost(of: ordering, in: source, reader),
            schemaVersion: version)
    }

    /// Itself when the table's columns and indexes did not change (one read
    /// of the catalog). A query is itself: a dropped table or column fails it.
    static func current(_ viewed: ViewedSource, _ reader: PostgresReader) throws -> ViewedSource {
        guard !viewed.source.isQuery else { return viewed }
        guard let version = try reader.fetchInt(schemaVersionSQL, arguments: [viewed.source.from.databaseValue]) else {
            throw SourceError.noSuchTable(name: viewed.source.name, tables: try relations(reader, sql: listSQL).map(\.displayName))
        }
        guard version != viewed.schemaVersion else { return viewed }
        return try open(
            .table(viewed.source.name), sortColumn: viewed.ordering.sortColumn, descending: viewed.ordering.descending,
            filter: viewed.source.filter, reader, known: (viewed.source.from, version))
    }

    /// Validated by the server: no parameters (nothing binds them), one
    /// statement (the extended protocol takes no more), that returns rows;
    /// the read-only transaction refuses a write. Columns from `LIMIT 0`.
    static func query(_ sql: String, _ reader: PostgresReader) throws -> RowSource {
        // Before the trim, which would drop an unterminated comment.
        try RowSource.checkEnclosable(query: sql, dialect: .postgres)
        let body = String(trimmingTrailingSemicolonsAndComments(sql))
        // Again: the trim reads strings with standard_conforming_strings on,
        // and could cut one the other reading keeps whole (`'a\' ; -- '`).
        try RowSource.checkEnclosable(query: body, dialect: .postgres)
        guard !body.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw SourceError.emptyQuery }
        if hasParameter(body) { throw SourceError.invalidQuery(reason: parameterProblem) }
        if SQLToken.holdsSeveralStatements(body, .postgres) { throw SourceError.multipleStatements }
        let columns: [PostgresColumn]
        do {
            _ = try reader.execute("SAVEPOINT \"query\"")
            columns = try reader.execute("SELECT * FROM (\n\(body)\n) AS \"rows\" LIMIT 0").columns
        } catch let error as PostgresError where error.kind == .query || error.kind == .usage {
            _ = try reader.execute("ROLLBACK TO SAVEPOINT \"query\"")
            throw try queryRefusal(body, error, reader)
        }
        guard !columns.isEmpty else { throw SourceError.noResultColumns }
        var source = RowSource.query(body, columnNames: columns.map(\.name), dialect: .postgres)
        source.name = sql
        for index in source.columns.indices {
            source.columns[index].declaredType = typeNames[columns[index].typeOID] ?? ""
        }
        source.tieBreakExpression = try tieBreak(of: source.columnExpressions, types: columns.map(\.typeOID), reader)
        if columns.contains(where: { unorderableTypes.contains($0.typeOID) }) {
            source.orderExpressions = zip(columns, source.columnExpressions).map { column, expression in
                unorderableTypes.contains(column.typeOID) ? expression + "::text" : expression
            }
        }
        return source
    }

    /// A statement that writes is `.notReadOnly`, as for SQLite; anything
    /// else is "only a SELECT". Only a statement `EXPLAIN` takes (one the
    /// planner runs) is run to get the refusal: the executor refuses it
    /// before any effect. Any other (`COMMIT`, `PREPARE TRANSACTION`) would
    /// end the viewer's own transaction.
    private static func queryRefusal(_ body: String, _ error: PostgresError, _ reader: PostgresReader) throws -> SourceError {
        // 42601: a subquery syntax error, as a non-SELECT gives; 0A000: a WITH
        // that writes, which only the top level may hold.
        guard error.sqlState == "42601" || error.sqlState == "0A000" else { return .invalidQuery(reason: error.message) }
        do {
            _ = try reader.execute("EXPLAIN (COSTS OFF) " + body)
        } catch let refusal as PostgresError where refusal.sqlState == "42601" {
            // Not a statement EXPLAIN takes, or a SELECT's own typo: said
            // better than by the subquery.
            _ = try reader.execute("ROLLBACK TO SAVEPOINT \"query\"")
            return .invalidQuery(reason: refusal.message)
        } catch is PostgresError {
            // EXPLAIN refuses it (permission denied for a DELETE): run, the
            // read-only transaction refuses it first, which says why better.
        }
        _ = try reader.execute("ROLLBACK TO SAVEPOINT \"query\"")
        do {
            _ = try reader.execute("SET LOCAL statement_timeout = 1000")
            _ = try reader.execute(body)
        } catch let refusal as PostgresError {
            _ = try reader.execute("ROLLBACK TO SAVEPOINT \"query\"")
            // 25006: a write the read-only transaction refused.
            return refusal.sqlState == "25006" ? .notReadOnly : .invalidQuery(reason: refusal.message)
        }
        _ = try reader.execute("ROLLBACK TO SAVEPOINT \"query\"")
        return .invalidQuery(reason: "only a SELECT can be viewed (\(error.message))")
    }

    /// Drops what follows the last statement (`SELECT 1; -- note`, from an
    /// editor or psql history), which the wrapping subquery could not hold.
    static func trimmingTrailingSemicolonsAndComments(_ sql: String) -> Substring {
        let last = SQLToken.tokens(of: sql, .postgres).last { !$0.isSymbol(";") }
        let end = sql.unicodeScalars.index(sql.startIndex, offsetBy: last?.range.upperBound ?? 0)
        return Substring(sql.unicodeScalars[..<end])
    }

    static let parameterProblem = "parameters ($1, $2…) have no value here: write the values in the SQL"

    /// Outside strings, quoted names, comments and `$$` bodies.
    static func hasParameter(_ sql: String) -> Bool {
        SQLToken.tokens(of: sql, .postgres).contains { $0.isNumberedParameter }
    }

    // MARK: - Cost

    /// A table without filter: an index search when its identity or an index
    /// leads the order (the planner uses it once the table is big enough to
    /// matter). Else the server's plans of the first and last windows.
    static func cost(of ordering: RowOrdering, in source: RowSource, _ reader: PostgresReader) throws -> WindowCost {
        if !source.isQuery, source.filter == nil, source.identity != .none {
            guard let sortColumn = ordering.sortColumn else { return .indexSearch }
            return source.columns.first { $0.name == sortColumn }?.isIndexed == true ? .indexSearch : .scan
        }
        for forward in [true, false] {
            let sql = source.selectSQL(
                extra: ordering.keyColumns.map(\.expression), where: nil,
                orderBy: ordering.orderBy(forward: forward), limit: true)
            let plan = try Self.plan(of: sql, arguments: ["51"], reader)
            if isScan(plan: plan, filtered: source.filter != nil) { return .scan }
        }
        return .indexSearch
    }

    /// A `Seq Scan`, or a `Sort` (not an `Incremental Sort`, which stops at
    /// the limit) of rows found otherwise than by equality: a sort of one key
    /// value's rows costs what its duplicates cost, as in SQLite. With a
    /// filter, a node that filters the rows it reads is a scan.
    static func isScan(plan: [String], filtered: Bool) -> Bool {
        let nodes = plan.map { $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "->  ", with: "") }
        let conditions = nodes.filter { $0.hasPrefix("Index Cond:") || $0.hasPrefix("Recheck Cond:") }
        let byEquality = !conditions.isEmpty && conditions.allSatisfy { !$0.contains("<") && !$0.contains(">") }
        return nodes.contains { node in
            node.contains("Seq Scan")
                || (node.hasPrefix("Sort") && !node.hasPrefix("Sort Key") && !node.hasPrefix("Sort Method") && !byEquality)
                || (filtered && node.hasPrefix("Filter:"))
        }
    }

    static func plan(of sql: String, arguments: [String?], _ reader: PostgresReader) throws -> [String] {
        try reader.execute("EXPLAIN (COSTS OFF) " + sql, arguments).rows.compactMap { $0.first ?? nil }
    }

    /// nil for a view or a query, and a table never analysed.
    static func estimatedRowCount(of source: RowSource, _ reader: PostgresReader) throws -> RowCount? {
        guard !source.isQuery else { return nil }
        let estimate = try reader.fetchInt(
            "SELECT reltuples::bigint FROM pg_catalog.pg_class WHERE oid = to_regclass($1) AND relkind IN ('r', 'p', 'm')",
            arguments: [source.from.databaseValue]) ?? -1
        return estimate >= 0 ? .estimated(estimate) : nil
    }
}
