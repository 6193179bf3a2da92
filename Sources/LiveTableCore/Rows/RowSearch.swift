import GRDB

/// The next (or previous) row whose column (or any column) contains the
/// text, found in SQL over the whole source, wrapping around at the end. Case-insensitive for
/// ASCII with `instr(lower(x), lower(?))` (PostgreSQL's `strpos`), not
/// `LIKE`, so that `%` and `_` are plain characters; walked with the
/// ordering's keyset ranges and `LIMIT 1`, so it stops at the first match.
package struct RowSearch: Equatable, Sendable {
    package var text: String
    /// Nil: any column of the row.
    package var column: Int?
    /// True for `n`, false for `N`.
    package var forward: Bool
    /// Not included; nil: the start of the ordering (the end, backwards).
    package var from: RowPosition?
    /// `o`: instead of the text, the row whose columns hold these values
    /// (the row a foreign key points to).
    package var key: KeyMatch?

    package struct KeyMatch: Equatable, Sendable {
        package var columns: [String]
        package var values: [DatabaseValue]

        package init(columns: [String], values: [DatabaseValue]) {
            self.columns = columns
            self.values = values
        }
    }

    package init(text: String, column: Int?, forward: Bool, from: RowPosition?) {
        self.text = text
        self.column = column
        self.forward = forward
        self.from = from
    }

    /// Off the main thread: without an index on the text, it reads rows
    /// until one matches.
    package func run(_ db: some RowReading, _ source: RowSource, _ ordering: RowOrdering) throws -> RowSearchResult {
        if let column, !source.columnExpressions.indices.contains(column) {
            throw SourceError.noSuchColumn(name: "#\(column + 1)", source: source.name, columns: source.columnNames)
        }
        let (contains, texts) = try matching(in: source)
        func firstMatch(in ranges: [RowOrdering.Range]) throws -> RowPosition? {
            for range in ranges {
                let sql = source.selectSQL(
                    columns: ordering.keyColumns.map(\.expression), where: [range.condition, contains].compactMap { $0 },
                    orderBy: ordering.orderBy(forward: range.forward), limit: true)
                let arguments = range.arguments + texts + [1.databaseValue]
                if let key = try db.firstRowValues(sql, arguments: arguments) {
                    // Rows equal in every column (no identity) can not be
                    // told apart: the match is the first of them.
                    return RowPosition(key: key)
                }
            }
            return nil
        }
        if let from {
            let ranges = forward ? ordering.after(from.key) : ordering.before(from.key)
            if let match = try firstMatch(in: ranges) {
                return RowSearchResult(search: self, match: match, wrapped: false)
            }
        }
        let match = try firstMatch(in: ordering.all(forward: forward))
        return RowSearchResult(search: self, match: match, wrapped: from != nil && match != nil)
    }
}

extension RowSearch {
    /// The condition a match meets, with its arguments: the text, or the key.
    func matching(in source: RowSource) throws -> (SQLFragment, [DatabaseValue]) {
        guard let key else {
            let contains = condition(in: source)
            return (contains, Array(repeating: text.databaseValue, count: contains.placeholderCount))
        }
        let expressions = try key.columns.map { name in
            // SQLite's names are not case-sensitive: `REFERENCES t(ID)`.
            let column = source.columns.first { $0.name == name }
                ?? source.columns.first { $0.name.lowercased() == name.lowercased() }
            guard let column, let expression = source.expression(ofColumn: column.name) else {
                throw SourceError.noSuchColumn(name: name, source: source.name, columns: source.columnNames)
            }
            return expression
        }
        return source.dialect.matching(expressions, key.values)
    }

    /// One containment per column searched, joined by `OR` (`selectSQL`
    /// puts each condition in parentheses), each with its own placeholder.
    func condition(in source: RowSource) -> SQLFragment {
        let spelling = source.dialect.containment
        let expressions = column.map { [source.columnExpressions[$0]] } ?? source.columnExpressions
        let conditions = expressions.map { expression in
            SQLFragment(spelling.beforeColumn + expression + spelling.beforeText) + .placeholder + SQLFragment(spelling.afterText)
        }
        return SQLFragment.joined(conditions, separator: " OR ")
    }
}

package struct RowSearchResult: Equatable, Sendable {
    package var search: RowSearch
    package var match: RowPosition?
    /// Found from the other end of the ordering.
    package var wrapped: Bool

    package init(search: RowSearch, match: RowPosition?, wrapped: Bool) {
        self.search = search
        self.match = match
        self.wrapped = wrapped
    }
}
