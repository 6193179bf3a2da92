import GRDB

/// A search for text in one column, from a row, in an ordering: the first
/// row after it (or before it) whose value contains the text, found in
/// SQL over the whole source, not in the rows on screen.
///
/// The text is compared case-insensitively for ASCII letters, with
/// SQLite's `instr(lower(column), lower(text))` (PostgreSQL's `strpos`,
/// on the value's text: `SQLDialect.containment`): no `LIKE` pattern, so
/// that `%` and `_` are plain characters. The rows are walked with the
/// ordering's keyset ranges (`RowOrdering.after(_:)`, `before(_:)`) and
/// `LIMIT 1`: the search stops at the first match. When none comes before
/// the end (the start), it goes on from the other end: the result then
/// says that it wrapped.
///
/// For example:
///
/// ```swift
/// let search = RowSearch(text: "needle", column: 1, forward: true, from: selected)
/// let result = try database.read { db in try search.run(db, viewed.source, viewed.ordering) }
/// result.match    // the position of the row, or nil: not found
/// result.wrapped  // true when it was found from the start again
/// ```
public struct RowSearch: Equatable, Sendable {
    /// The text to look for.
    public var text: String
    /// The index of the column, in the source's columns.
    public var column: Int
    /// True for the next row (`n`), false for the previous one (`N`).
    public var forward: Bool
    /// The row the search starts from (not included); nil for the start
    /// of the ordering (the end, backwards).
    public var from: RowPosition?

    /// Creates a search.
    public init(text: String, column: Int, forward: Bool, from: RowPosition?) {
        self.text = text
        self.column = column
        self.forward = forward
        self.from = from
    }

    /// Runs the search, in the read of `db`. Call it off the main thread:
    /// without an index on the text, it reads rows until one matches.
    ///
    /// - throws: `SourceError.noSuchColumn` for a column out of range,
    ///   and SQLite's errors.
    public func run(_ db: some RowReading, _ source: RowSource, _ ordering: RowOrdering) throws -> RowSearchResult {
        guard source.columnExpressions.indices.contains(column) else {
            throw SourceError.noSuchColumn(name: "#\(column + 1)", source: source.name, columns: source.columnNames)
        }
        let contains = condition(in: source)
        func firstMatch(in ranges: [RowOrdering.Range]) throws -> RowPosition? {
            for range in ranges {
                let sql = source.selectSQL(
                    columns: ordering.keyColumns.map(\.expression), where: [range.condition, contains].compactMap { $0 },
                    orderBy: ordering.orderBy(forward: range.forward), limit: true)
                let arguments = range.arguments + [text.databaseValue, 1.databaseValue]
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
    /// The test of the searched column, in the dialect of `source`:
    /// `instr(lower(x), lower(?)) > 0` (SQLite), its one argument the text.
    /// The column must be one of the source's.
    func condition(in source: RowSource) -> SQLFragment {
        let spelling = source.dialect.containment
        return SQLFragment(spelling.beforeColumn + source.columnExpressions[column] + spelling.beforeText)
            + .placeholder + SQLFragment(spelling.afterText)
    }
}

/// What a `RowSearch` found.
public struct RowSearchResult: Equatable, Sendable {
    /// The search.
    public var search: RowSearch
    /// The position of the matching row, nil when no row matches.
    public var match: RowPosition?
    /// True when the match was found from the other end of the ordering.
    public var wrapped: Bool

    /// Creates a result.
    public init(search: RowSearch, match: RowPosition?, wrapped: Bool) {
        self.search = search
        self.match = match
        self.wrapped = wrapped
    }
}
