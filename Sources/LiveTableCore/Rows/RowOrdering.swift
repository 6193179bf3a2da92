import GRDB

/// A total order on the rows of a source: the sort key from which the
/// keyset SQL of a window is derived.
///
/// The key is the sort column, then the row identity as a tiebreaker (the
/// rowid, or the primary key of a `WITHOUT ROWID` table). A source without
/// identity (a view, a query) is ordered by all its columns (and its
/// `RowSource.tieBreakExpression`), and rows that are equal in all of
/// them by their position among equals (see `RowPosition.occurrence`).
///
/// The tiebreaker goes in the direction of the sort column, so that one
/// walk of an index on the sort column (which SQLite extends with the
/// rowid or the primary key) reads the rows in key order, both ways.
///
/// For example:
///
/// ```swift
/// // score DESC, rowid DESC
/// let ordering = try RowOrdering(source, sortColumn: "score", descending: true)
/// ```
public struct RowOrdering: Equatable, Sendable {
    /// One column of the key.
    public struct KeyColumn: Equatable, Sendable {
        /// The SQL expression of the column, quoted.
        public var expression: String
        /// True when the column sorts in descending order.
        public var descending: Bool
        /// True when the column never holds NULL (the rowid, the primary
        /// key of a `WITHOUT ROWID` table): no range looks for NULLs,
        /// which the rowid can not search.
        public var isNotNull: Bool
        /// True when NULL comes before every value in key order, false
        /// when after; nil where the dialect puts it in that direction
        /// (`SQLDialect.sortsNullsFirst`). Set by a query's own
        /// `NULLS FIRST` or `NULLS LAST` (`QueryOrder`), written in
        /// `ORDER BY` only then.
        public var nullsFirst: Bool?

        /// Creates a key column.
        ///
        /// For example:
        ///
        /// ```swift
        /// let column = RowOrdering.KeyColumn(expression: "\"score\"", descending: true)
        /// ```
        public init(expression: String, descending: Bool, isNotNull: Bool = false, nullsFirst: Bool? = nil) {
            self.expression = expression
            self.descending = descending
            self.isNotNull = isNotNull
            self.nullsFirst = nullsFirst
        }
    }

    /// The key, in order of precedence.
    public var keyColumns: [KeyColumn]
    /// True when no two rows have the same key (the key holds a row
    /// identity); false when equal rows are told apart by position.
    public var isUnique: Bool
    /// The name of the column the rows are sorted on, as the source spells
    /// it, nil for the identity order.
    public var sortColumn: String?
    /// True when the sort is descending.
    public var descending: Bool
    /// The index whose entries are in key order, named by every statement
    /// of a window with `INDEXED BY`, so that the plan never depends on
    /// the query planner's guesses; nil lets the planner choose.
    ///
    /// The Hall of Fame names the index of each of its orderings: a test
    /// holds its key columns against the index.
    public var indexName: String? = nil
    /// The SQL dialect of the sources it orders: where NULL sorts, which
    /// the keyset ranges follow, and how a key is matched.
    public var dialect: SQLDialect = .sqlite

    /// Creates an ordering from its key columns: for orderings that are
    /// not a sort column plus an identity (mixed directions, several sort
    /// columns).
    ///
    /// For example:
    ///
    /// ```swift
    /// // Mixed directions: score DESC, name, id.
    /// let ordering = RowOrdering(keyColumns: [
    ///     .init(expression: "score", descending: true),
    ///     .init(expression: "name", descending: false),
    ///     .init(expression: "id", descending: false),
    /// ], isUnique: true)
    /// ```
    ///
    /// - parameter dialect: The dialect of the sources it orders.
    public init(keyColumns: [KeyColumn], isUnique: Bool, dialect: SQLDialect) {
        self.keyColumns = keyColumns
        self.isUnique = isUnique
        self.sortColumn = nil
        self.descending = keyColumns.first?.descending ?? false
        self.dialect = dialect
    }

    /// Creates an ordering from its key columns, read on `indexName` (see
    /// `indexName`).
    ///
    /// For example:
    ///
    /// ```swift
    /// let ordering = RowOrdering(keyColumns: [
    ///     .init(expression: "score", descending: true, isNotNull: true),
    ///     .init(expression: "name", descending: false, isNotNull: true),
    ///     .init(expression: "id", descending: false, isNotNull: true),
    /// ], isUnique: true, indexName: "player_on_score")
    /// ```
    public init(keyColumns: [KeyColumn], isUnique: Bool, indexName: String) {
        self.init(keyColumns: keyColumns, isUnique: isUnique, dialect: .sqlite)
        self.indexName = indexName
    }

    /// The order of `source` on `sortColumn`, then on the identity; or on
    /// the identity alone when `sortColumn` is nil.
    ///
    /// For example:
    ///
    /// ```swift
    /// let byName = try RowOrdering(source, sortColumn: "name")
    /// let natural = try RowOrdering(source) // rowid, primary key, or all columns
    /// ```
    ///
    /// - throws: `SourceError.noSuchColumn` when the source has no such column.
    public init(_ source: RowSource, sortColumn: String? = nil, descending: Bool = false) throws {
        var expressions: [String] = []
        var notNull: Set<String> = []
        // The column's own spelling: `--sort PRICE` sorts by "price", and the
        // title and the sort keys name it as the table does.
        var sortColumnName: String?
        if let sortColumn {
            guard let column = source.columns.first(where: { $0.name == sortColumn })
                ?? source.columns.first(where: { $0.name.lowercased() == sortColumn.lowercased() }),
                let expression = source.orderExpression(ofColumn: column.name)
            else {
                throw SourceError.noSuchColumn(name: sortColumn, source: source.name, columns: source.columnNames)
            }
            sortColumnName = column.name
            expressions.append(expression)
            if column.isNotNull {
                notNull.insert(expression)
            }
        }
        // A query's own `ORDER BY`, when no column is sorted: its kept
        // terms come first, all the columns after them break ties.
        var queryTerms: [String: QueryOrder.Term] = [:]
        if sortColumnName == nil, let terms = source.queryOrder?.terms {
            let order = source.orderExpressions ?? source.columnExpressions
            for term in terms where order.indices.contains(term.column) && !expressions.contains(order[term.column]) {
                expressions.append(order[term.column])
                queryTerms[order[term.column]] = term
            }
        }
        for expression in source.identityExpressions where !expressions.contains(expression) {
            expressions.append(expression)
        }
        if source.identity != .none {
            notNull.formUnion(source.identityExpressions)
        }
        // The tiebreakers of a WITHOUT ROWID table keep the directions of
        // its primary key (`PRIMARY KEY(b DESC, a)`) relative to the
        // direction of the walk: the order of its primary key index, and
        // of the entries of its other indexes, which end with the primary
        // key. A sort on a column of the key declared DESC walks the key's
        // index backwards when it is ascending.
        let reversed = Set(source.descendingIdentityColumns.map { source.dialect.quoted($0) })
        let sortsReversedKey = sortColumnName != nil && expressions.first.map(reversed.contains) == true
        let walksBackwards = descending != sortsReversedKey
        self.keyColumns = expressions.enumerated().map { index, expression in
            let isSortColumn = index == 0 && sortColumnName != nil
            if let term = queryTerms[expression] {
                return KeyColumn(expression: expression, descending: term.descending, nullsFirst: term.nullsFirst)
            }
            return KeyColumn(
                expression: expression,
                descending: isSortColumn ? descending : walksBackwards != reversed.contains(expression),
                isNotNull: notNull.contains(expression))
        }
        self.isUnique = source.identity != .none
        self.sortColumn = sortColumnName
        self.descending = descending
        self.dialect = source.dialect
    }

    // MARK: - SQL

    /// `ORDER BY` in key order, or in reverse key order.
    func orderBy(forward: Bool) -> String {
        keyColumns
            .map { column in
                let term = column.descending == forward ? "\(column.expression) DESC" : column.expression
                // NULL's own place, where it is not the dialect's: at the
                // other end when read backwards.
                guard let nullsFirst = column.nullsFirst else { return term }
                return term + (nullsFirst == forward ? " NULLS FIRST" : " NULLS LAST")
            }
            .joined(separator: ", ")
    }

    /// One range of rows that one index search can read: a condition, its
    /// arguments, and the direction in which it is read.
    struct Range {
        /// The condition, its placeholders written by the dialect where
        /// `RowSource.selectSQL` numbers them; nil for all rows.
        var condition: SQLFragment?
        var arguments: [DatabaseValue]
        var forward: Bool

        init(condition: SQLFragment?, arguments: [DatabaseValue], forward: Bool) {
            self.condition = condition
            self.arguments = arguments
            self.forward = forward
        }

        /// The rows of any of `ranges`: `(c1) OR (c2) OR …`, each condition
        /// in its own parentheses (`RowSource.selectSQL` puts the whole in
        /// parentheses of its own).
        init(union ranges: [Range], forward: Bool, dialect: SQLDialect) {
            condition = SQLFragment.joined(
                ranges.map { SQLFragment("(") + ($0.condition ?? SQLFragment(dialect.trueCondition)) + SQLFragment(")") },
                separator: " OR ")
            arguments = ranges.flatMap(\.arguments)
            self.forward = forward
        }
    }

    /// All rows, forwards or backwards.
    func all(forward: Bool) -> [Range] {
        [Range(condition: nil, arguments: [], forward: forward)]
    }

    /// The rows whose key equals `key`.
    func equal(to key: [DatabaseValue], forward: Bool) -> [Range] {
        let (condition, arguments) = matching(keyColumns.map(\.expression), key)
        return [Range(condition: condition, arguments: arguments, forward: forward)]
    }

    /// `x IS ? AND y IS ?` (SQLite); `x = $1 AND y IS NULL` (PostgreSQL,
    /// see `SQLDialect.KeyEquality`): true when each expression is its
    /// value, NULL included; and the arguments it takes.
    func matching(_ expressions: [String], _ values: [DatabaseValue]) -> (SQLFragment, [DatabaseValue]) {
        dialect.matching(expressions, values)
    }

    /// The rows strictly after `key`, closest first.
    func after(_ key: [DatabaseValue]) -> [Range] { ranges(key, after: true) }

    /// The rows strictly before `key`, closest first (read backwards).
    func before(_ key: [DatabaseValue]) -> [Range] { ranges(key, after: false) }

    /// The rows strictly on one side of `key`, as disjoint ranges, from
    /// the closest to the key: same first columns and a later last column,
    /// from the last column of the key to the first.
    ///
    /// A row value comparison such as `(a, rowid) > (?, ?)` would be
    /// shorter, but a NULL in the row value makes the comparison NULL,
    /// which drops the rows it should keep, and it can not mix directions.
    /// Instead each column is compared the way the database sorts: NULL
    /// before every value in SQLite (so last in a descending order), after
    /// every value in PostgreSQL (`SQLDialect.sortsNullsFirst`), unless a
    /// query's `NULLS FIRST`/`LAST` says otherwise (`KeyColumn.nullsFirst`), and
    /// values by `<` and `>`, which order them the way `ORDER BY` does.
    /// `x < ? OR x IS NULL` is two ranges, so that each statement stays
    /// one index search.
    private func ranges(_ key: [DatabaseValue], after: Bool) -> [Range] {
        // A key of another ordering (a position read before a sort): no
        // place in this one, so the whole ordering.
        guard key.count == keyColumns.count else { return all(forward: after) }
        var result: [Range] = []
        for position in keyColumns.indices.reversed() {
            let column = keyColumns[position]
            let value = key[position]
            // Later in the walk: greater in an ascending column.
            let greater = after != column.descending
            // Towards the end where the NULLs are: the greater end when
            // NULL sorts after every value, or when a column's own NULLS
            // FIRST puts them before its descending values.
            let nullsAtGreaterEnd = column.nullsFirst.map { $0 == column.descending } ?? !dialect.sortsNullsFirst
            let towardsNulls = greater == nullsAtGreaterEnd
            let comparison = SQLFragment(greater ? " > " : " < ") + .placeholder
            let steps: [(SQLFragment, [DatabaseValue])]
            switch (towardsNulls, value.isNull) {
            case (false, true):
                steps = [(SQLFragment(" IS NOT NULL"), [])]
            case (false, false):
                steps = [(comparison, [value])]
            case (true, true):
                steps = []
            case (true, false):
                steps = column.isNotNull
                    ? [(comparison, [value])] : [(comparison, [value]), (SQLFragment(" IS NULL"), [])]
            }
            let (prefix, prefixArguments) = matching(keyColumns[..<position].map(\.expression), Array(key[..<position]))
            for (test, arguments) in steps {
                let condition = SQLFragment(column.expression) + test
                result.append(Range(
                    condition: position == 0 ? condition : SQLFragment.joined([prefix, condition], separator: " AND "),
                    arguments: prefixArguments + arguments,
                    forward: after))
            }
        }
        return result
    }
}

/// What a window costs.
public enum WindowCost: Equatable, Sendable {
    /// Each statement is an index search: the cost does not depend on the
    /// number of rows.
    case indexSearch
    /// The rows are sorted or filtered by a scan: the cost grows with the
    /// number of rows (an unindexed sort column, a view with a GROUP BY…).
    case scan
}
