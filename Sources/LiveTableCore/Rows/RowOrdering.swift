import GRDB

/// A total order on the rows of a source, from which a window's keyset SQL
/// is derived: the sort column, then the row identity (rowid or primary
/// key) as tiebreaker; without identity, all columns, then position among
/// equals (`RowPosition.occurrence`). The tiebreaker follows the sort
/// column's direction, so that one walk of an index on the sort column
/// (which SQLite extends with the identity) reads rows in key order.
package struct RowOrdering: Equatable, Sendable {
    package struct KeyColumn: Equatable, Sendable {
        package var expression: String
        package var descending: Bool
        /// Never NULL (rowid, primary key of a `WITHOUT ROWID` table): no
        /// range looks for NULLs, which the rowid can not search.
        package var isNotNull: Bool
        /// Set only by a query's own `NULLS FIRST`/`LAST` (`QueryOrder`);
        /// nil leaves NULL where the dialect puts it.
        package var nullsFirst: Bool?
        package init(expression: String, descending: Bool, isNotNull: Bool = false, nullsFirst: Bool? = nil) {
            self.expression = expression
            self.descending = descending
            self.isNotNull = isNotNull
            self.nullsFirst = nullsFirst
        }
    }

    package var keyColumns: [KeyColumn]
    package var isUnique: Bool
    package var sortColumn: String?
    package var descending: Bool
    /// Named by every statement of a window with `INDEXED BY`, so that the
    /// plan never depends on the planner's guesses. A test holds the Hall of
    /// Fame's key columns against its indexes.
    package var indexName: String? = nil
    package var dialect: SQLDialect = .sqlite

    /// For orderings that are not a sort column plus an identity (mixed
    /// directions, several sort columns).
    package init(keyColumns: [KeyColumn], isUnique: Bool, dialect: SQLDialect) {
        self.keyColumns = keyColumns
        self.isUnique = isUnique
        self.sortColumn = nil
        self.descending = keyColumns.first?.descending ?? false
        self.dialect = dialect
    }

    package init(keyColumns: [KeyColumn], isUnique: Bool, indexName: String) {
        self.init(keyColumns: keyColumns, isUnique: isUnique, dialect: .sqlite)
        self.indexName = indexName
    }

    /// Orders on `sortColumn` (nil: the identity alone), then the identity.
    package init(_ source: RowSource, sortColumn: String? = nil, descending: Bool = false) throws {
        var expressions: [String] = []
        var notNull: Set<String> = []
        // The column's own spelling: `--sort PRICE` sorts by "price".
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
        // A query's own `ORDER BY` when no column is sorted: its terms first,
        // all columns after them break ties.
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
        if source.identity != .none, !source.isQuery {
            notNull.formUnion(source.identityExpressions)
        }
        // A WITHOUT ROWID table's tiebreakers keep its primary key's
        // directions (`PRIMARY KEY(b DESC, a)`) relative to the walk: the
        // order of its key index, and of its other indexes, which end with
        // the key. A sort on a key column declared DESC walks backwards
        // when ascending.
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

    func orderBy(forward: Bool) -> String {
        keyColumns
            .map { column in
                let term = column.descending == forward ? "\(column.expression) DESC" : column.expression
                // NULL's own place, at the other end when read backwards.
                guard let nullsFirst = column.nullsFirst else { return term }
                return term + (nullsFirst == forward ? " NULLS FIRST" : " NULLS LAST")
            }
            .joined(separator: ", ")
    }

    /// Rows that one index search can read.
    struct Range {
        /// Placeholders are numbered by `RowSource.selectSQL`; nil: all rows.
        var condition: SQLFragment?
        var arguments: [DatabaseValue]
        var forward: Bool

        init(condition: SQLFragment?, arguments: [DatabaseValue], forward: Bool) {
            self.condition = condition
            self.arguments = arguments
            self.forward = forward
        }

        /// `(c1) OR (c2) OR …`.
        init(union ranges: [Range], forward: Bool, dialect: SQLDialect) {
            condition = SQLFragment.joined(
                ranges.map { SQLFragment("(") + ($0.condition ?? SQLFragment(dialect.trueCondition)) + SQLFragment(")") },
                separator: " OR ")
            arguments = ranges.flatMap(\.arguments)
            self.forward = forward
        }
    }

    func all(forward: Bool) -> [Range] {
        [Range(condition: nil, arguments: [], forward: forward)]
    }

    func equal(to key: [DatabaseValue], forward: Bool) -> [Range] {
        let (condition, arguments) = matching(keyColumns.map(\.expression), key)
        return [Range(condition: condition, arguments: arguments, forward: forward)]
    }

    /// True when each expression is its value, NULL included (see
    /// `SQLDialect.KeyEquality`).
    func matching(_ expressions: [String], _ values: [DatabaseValue]) -> (SQLFragment, [DatabaseValue]) {
        dialect.matching(expressions, values)
    }

    func after(_ key: [DatabaseValue]) -> [Range] { ranges(key, after: true) }

    func before(_ key: [DatabaseValue]) -> [Range] { ranges(key, after: false) }

    /// The rows strictly on one side of `key`, as disjoint ranges, closest
    /// first: same first columns and a later last column, from the last
    /// column of the key to the first.
    ///
    /// Not a row value comparison `(a, rowid) > (?, ?)`: a NULL makes it
    /// NULL and drops rows, and it can not mix directions. Each column is
    /// compared as the database sorts (NULL first in SQLite, last in
    /// PostgreSQL, or as a query's `NULLS FIRST`/`LAST` says), and
    /// `x < ? OR x IS NULL` is two ranges, so each stays one index search.
    private func ranges(_ key: [DatabaseValue], after: Bool) -> [Range] {
        // A key of another ordering (read before a sort): the whole ordering.
        guard key.count == keyColumns.count else { return all(forward: after) }
        var result: [Range] = []
        for position in keyColumns.indices.reversed() {
            let column = keyColumns[position]
            let value = key[position]
            let greater = after != column.descending
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

package enum WindowCost: Equatable, Sendable {
    case indexSearch
    /// An unindexed sort column, a view with a GROUP BY…: grows with the table.
    case scan
}
