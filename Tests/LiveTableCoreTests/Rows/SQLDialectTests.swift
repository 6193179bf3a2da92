import Foundation
import GRDB
import XCTest
@testable import LiveTableCore

/// The statements of the window engine in PostgreSQL's dialect, as
/// strings (the PostgreSQL implementation runs them against a server),
/// and the keyset ranges under both placements of NULL, against an
/// in-memory sort of random rows.
final class SQLDialectTests: XCTestCase {
    /// `"sales"."item"`: a primary key, a nullable sort column, and a
    /// column whose name holds a `?` and a `$1`.
    private func postgresItem() -> RowSource {
        RowSource.table(TableSchema(
            name: "item", kind: .table,
            columns: [
                SourceColumn(name: "id", declaredType: "int8", isIndexed: true, isNotNull: true),
                SourceColumn(name: "wh?y $1", declaredType: "text", isIndexed: false),
                SourceColumn(name: "price", declaredType: "numeric", isIndexed: true),
            ],
            identity: .primaryKey(["id"]), schema: "sales"), dialect: .postgres)
    }

    private func statement(_ source: RowSource, _ ordering: RowOrdering, _ range: RowOrdering.Range) -> String {
        source.selectSQL(
            extra: [], indexedBy: ordering.indexName, where: range.condition,
            orderBy: ordering.orderBy(forward: range.forward), limit: true)
    }

    func testAPostgresFilterThatClosesItsParenthesesInADollarStringIsRefused() throws {
        // To a scan that knows no $$…$$, balanced; to PostgreSQL,
        // `($$($$ = 'x') OR (TRUE) OR ($$)$$ = '')`: the first `)` would
        // close the WHERE (…), and OR TRUE switch off the window's ranges.
        let filter = "$$($$ = 'x') OR (TRUE) OR ($$)$$ = ''"
        XCTAssertThrowsError(try postgresItem().applyingFilter(filter)) { error in
            guard case SourceError.invalidFilter = error else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try postgresItem().applyingFilter("$tag$a$tag$ = 'b'); SELECT (1")) { error in
            guard case SourceError.invalidFilter = error else { return XCTFail("\(error)") }
        }
        XCTAssertNoThrow(try postgresItem().applyingFilter("note = $$x$$ OR (price > 2)"))
    }

    /// Text that closed PostgreSQL's `WHERE (…)` where the scan saw no
    /// parenthesis: a `--` comment that `\r` ends, a name that starts
    /// with a blank beyond ASCII, a number followed by a name. As a
    /// filter and in a query, both refused.
    func testAPostgresFilterOrQueryThatCloseWhereTheScanSawNothingAreRefused() throws {
        for filter in [
            "false -- x\r) OR TRUE OR (TRUE",
            "id IN (SELECT 1 \u{A0}$$)) OR true OR ((SELECT true y$$)",
            "id IN (SELECT 1x$$)) OR true OR ((SELECT true y$$)",
        ] {
            XCTAssertThrowsError(try postgresItem().applyingFilter(filter), filter) { error in
                XCTAssertEqual(error as? SourceError, .invalidFilter(reason: "unbalanced parentheses: a filter is one expression"))
            }
            XCTAssertThrowsError(try RowSource.checkEnclosable(query: "SELECT * FROM item WHERE \(filter)", dialect: .postgres)) { error in
                XCTAssertEqual(error as? SourceError, .invalidQuery(reason: "unbalanced parentheses"))
            }
        }
        // SQLite's `--` comment runs to the `\n` after it: one expression.
        XCTAssertNoThrow(try RowSource.checkEnclosable(query: "SELECT * FROM item WHERE false -- x\r) OR (TRUE", dialect: .sqlite))
    }

    /// A filter that switches standard_conforming_strings off for its
    /// transaction, or a string that goes on after a newline: closed
    /// where the scan once saw a string or a comment. As a filter and in
    /// a query, both refused; SQLite's `/*` inside a comment likewise.
    func testTextsThatCloseUnderTheOtherReadingOrAfterAContinuedStringAreRefused() throws {
        for filter in [
            #"set_config('standard_conforming_strings','off',true) <> '' AND 'a\' = ' ) OR (1=1 /* ' -- */"#,
            "E'a'\n'\\' ' ) OR (1=1 /* ' */",
        ] {
            XCTAssertThrowsError(try postgresItem().applyingFilter(filter), filter) { error in
                XCTAssertEqual(error as? SourceError, .invalidFilter(reason: "unbalanced parentheses: a filter is one expression"))
            }
            XCTAssertThrowsError(try RowSource.checkEnclosable(query: "SELECT * FROM item WHERE \(filter)", dialect: .postgres)) { error in
                XCTAssertEqual(error as? SourceError, .invalidQuery(reason: "unbalanced parentheses"))
            }
        }
        // A `;` that only the other reading leaves outside a string.
        XCTAssertThrowsError(try postgresItem().applyingFilter(#"name = 'a\' AND ' ; ' -- '"#)) { error in
            XCTAssertEqual(error as? SourceError, .invalidFilter(reason: "a filter is one expression, without ;"))
        }
        XCTAssertNoThrow(try postgresItem().applyingFilter("name = 'it''s' AND name <> E'\\\\'\n  'x'"))
        XCTAssertThrowsError(
            try RowSource.checkEnclosable(query: "SELECT * FROM item WHERE 1 /* /*/ ) OR (1=1 /* */", dialect: .sqlite))
        { error in
            XCTAssertEqual(error as? SourceError, .invalidQuery(reason: "unbalanced parentheses"))
        }
    }

    func testPostgresQuotesSchemaAndNamesAndNumbersOnlyItsOwnPlaceholders() throws {
        let source = try postgresItem().applyingFilter("note <> '?' AND \"wh?y $1\" <> '$1'")
        var ordering = try RowOrdering(source, sortColumn: "price")
        ordering.indexName = "item_price"
        let key = [3.databaseValue, 7.databaseValue]
        XCTAssertEqual(ordering.after(key).map { statement(source, ordering, $0) }, [
            "SELECT \"id\", \"wh?y $1\", \"price\" FROM \"sales\".\"item\" WHERE (\nnote <> '?' AND \"wh?y $1\" <> '$1'\n)"
                + " AND (\n\"price\" = $1 AND \"id\" > $2\n) ORDER BY \"price\", \"id\" LIMIT $3",
            "SELECT \"id\", \"wh?y $1\", \"price\" FROM \"sales\".\"item\" WHERE (\nnote <> '?' AND \"wh?y $1\" <> '$1'\n)"
                + " AND (\n\"price\" > $1\n) ORDER BY \"price\", \"id\" LIMIT $2",
            // NULL after every value: the last range after a value.
            "SELECT \"id\", \"wh?y $1\", \"price\" FROM \"sales\".\"item\" WHERE (\nnote <> '?' AND \"wh?y $1\" <> '$1'\n)"
                + " AND (\n\"price\" IS NULL\n) ORDER BY \"price\", \"id\" LIMIT $1",
        ])
        XCTAssertEqual(ordering.after(key).map(\.arguments), [key, [key[0]], []])
        XCTAssertEqual(ordering.before(key).map { statement(source, ordering, $0) }, [
            "SELECT \"id\", \"wh?y $1\", \"price\" FROM \"sales\".\"item\" WHERE (\nnote <> '?' AND \"wh?y $1\" <> '$1'\n)"
                + " AND (\n\"price\" = $1 AND \"id\" < $2\n) ORDER BY \"price\" DESC, \"id\" DESC LIMIT $3",
            "SELECT \"id\", \"wh?y $1\", \"price\" FROM \"sales\".\"item\" WHERE (\nnote <> '?' AND \"wh?y $1\" <> '$1'\n)"
                + " AND (\n\"price\" < $1\n) ORDER BY \"price\" DESC, \"id\" DESC LIMIT $2",
        ])
    }

    func testPostgresRangesAroundANullKeyPutNullsLast() throws {
        let source = postgresItem()
        let ordering = try RowOrdering(source, sortColumn: "price")
        let key = [DatabaseValue.null, 7.databaseValue]
        // After a NULL: only the NULLs of later ids.
        XCTAssertEqual(ordering.after(key).map { statement(source, ordering, $0) }, [
            "SELECT \"id\", \"wh?y $1\", \"price\" FROM \"sales\".\"item\" WHERE (\n\"price\" IS NULL AND \"id\" > $1\n)"
                + " ORDER BY \"price\", \"id\" LIMIT $2",
        ])
        XCTAssertEqual(ordering.before(key).map { statement(source, ordering, $0) }, [
            "SELECT \"id\", \"wh?y $1\", \"price\" FROM \"sales\".\"item\" WHERE (\n\"price\" IS NULL AND \"id\" < $1\n)"
                + " ORDER BY \"price\" DESC, \"id\" DESC LIMIT $2",
            "SELECT \"id\", \"wh?y $1\", \"price\" FROM \"sales\".\"item\" WHERE (\n\"price\" IS NOT NULL\n)"
                + " ORDER BY \"price\" DESC, \"id\" DESC LIMIT $1",
        ])
    }

    func testPostgresHasNoIndexHintAndNumbersAUnionOfRangesInOrder() throws {
        let source = postgresItem()
        var ordering = try RowOrdering(source, sortColumn: "price", descending: true)
        ordering.indexName = "item_price"
        let ranges = ordering.after([3.databaseValue, 7.databaseValue])
        let union = RowOrdering.Range(union: ranges, forward: true, dialect: .postgres)
        XCTAssertEqual(statement(source, ordering, union),
            "SELECT \"id\", \"wh?y $1\", \"price\" FROM \"sales\".\"item\" WHERE (\n"
                + "(\"price\" = $1 AND \"id\" < $2) OR (\"price\" < $3)\n)"
                + " ORDER BY \"price\" DESC, \"id\" DESC LIMIT $4")
        XCTAssertEqual(union.arguments, [3.databaseValue, 7.databaseValue, 3.databaseValue])
        var number = 1
        XCTAssertEqual(
            RowOrdering.Range(union: ordering.all(forward: true) + ranges.prefix(1), forward: true, dialect: .postgres)
                .condition?.sql(.postgres, numbering: &number),
            "(TRUE) OR (\"price\" = $1 AND \"id\" < $2)")
        XCTAssertEqual(number, 3)
    }

    func testPostgresSearchCountAndQueryStatements() throws {
        let source = postgresItem()
        let ordering = try RowOrdering(source, sortColumn: "price")
        let search = RowSearch(text: "?", column: 1, forward: true, from: nil)
        let range = ordering.after([3.databaseValue, 7.databaseValue])[1]
        XCTAssertEqual(
            source.selectSQL(
                columns: ordering.keyColumns.map(\.expression), where: [range.condition, search.condition(in: source)].compactMap { $0 },
                orderBy: ordering.orderBy(forward: true), limit: true),
            "SELECT \"price\", \"id\" FROM \"sales\".\"item\" WHERE (\n\"price\" > $1\n)"
                + " AND (\nstrpos(lower(\"wh?y $1\"::text), lower($2)) > 0\n) ORDER BY \"price\", \"id\" LIMIT $3")
        XCTAssertEqual(
            SQLDialect.postgres.countSQL(of: source.selectSQL(columns: ["1"], where: nil, limit: true)),
            "SELECT COUNT(*) FROM (SELECT 1 FROM \"sales\".\"item\" LIMIT $1) AS \"rows\"")

        // The query's own `?` and `$1` are its text: left as they are.
        let query = try RowSource.query(
            "SELECT a, b FROM t WHERE a <> '$1' AND b <> '?';", columnNames: ["a", "b"], dialect: .postgres)
            .applyingFilter("a > 1")
        let queryOrdering = try RowOrdering(query)
        let equal = queryOrdering.equal(to: [1.databaseValue, DatabaseValue.null], forward: true)[0]
        XCTAssertEqual(
            query.selectSQL(where: equal.condition, orderBy: queryOrdering.orderBy(forward: true), limit: true),
            "WITH \"source rows\"(\"a\", \"b\") AS (\nSELECT a, b FROM t WHERE a <> '$1' AND b <> '?'\n), \"source\"(c0, c1) AS (\n"
                + "SELECT * FROM \"source rows\" WHERE (\na > 1\n)\n) SELECT c0, c1 FROM \"source\" WHERE (\nc0 = $1 AND c1 IS NULL\n)"
                + " ORDER BY c0, c1 LIMIT $2")
        let lookup = try XCTUnwrap(source.identityLookup)
        XCTAssertEqual(lookup.statement(for: [5.databaseValue]).sql, "SELECT 1 FROM \"sales\".\"item\" WHERE (\n\"id\" = $1\n) LIMIT 1")
    }

    // MARK: - The ranges, as a partition

    /// For random rows and orderings (directions, NULLs, duplicates), under
    /// both placements of NULL: the rows of `after(key)`'s ranges, each
    /// read in its order, are exactly the rows after the key in the sort,
    /// in order; and those of `before(key)`, the rows before it, closest
    /// first.
    func testRangesPartitionTheRowsAroundEveryKeyWhereverNullsSort() throws {
        var generator = SeededGenerator(seed: 19)
        for dialect in [SQLDialect.sqlite, .postgres] {
            for _ in 0..<200 {
                let unique = Bool.random(using: &generator)
                var columns = ["a", "b"].map {
                    RowOrdering.KeyColumn(expression: $0, descending: Bool.random(using: &generator))
                }
                if unique {
                    columns.append(.init(expression: "id", descending: Bool.random(using: &generator), isNotNull: true))
                }
                let ordering = RowOrdering(keyColumns: columns, isUnique: unique, dialect: dialect)
                let rows: [[Int?]] = (0..<Int.random(in: 0...9, using: &generator)).map { id in
                    let values = (0..<2).map { _ -> Int? in
                        Int.random(in: 0...3, using: &generator) == 0 ? nil : Int.random(in: 1...3, using: &generator)
                    }
                    return unique ? values + [id] : values
                }
                let sorted = rows.sorted { compare($0, $1, ordering) < 0 }
                var keys = rows
                keys.append(columns.map { _ in nil })
                keys.append(columns.map { _ in 2 })
                for key in keys {
                    let values = key.map { $0.map(\.databaseValue) ?? .null }
                    let after = sorted.filter { compare($0, key, ordering) > 0 }
                    let before = Array(sorted.filter { compare($0, key, ordering) < 0 }.reversed())
                    XCTAssertEqual(
                        try read(ordering.after(values), rows, ordering), after,
                        "\(dialect == .sqlite ? "sqlite" : "postgres") \(columns) after \(key)")
                    XCTAssertEqual(
                        try read(ordering.before(values), rows, ordering), before,
                        "\(dialect == .sqlite ? "sqlite" : "postgres") \(columns) before \(key)")
                }
            }
        }
    }

    /// -1, 0 or 1: how `x` and `y` compare in `ordering`, NULL placed as
    /// its dialect places it in ascending order, the whole reversed for a
    /// descending column (as `ORDER BY x DESC` does in both databases).
    private func compare(_ x: [Int?], _ y: [Int?], _ ordering: RowOrdering) -> Int {
        for (index, column) in ordering.keyColumns.enumerated() {
            var result: Int
            switch (x[index], y[index]) {
            case (nil, nil): result = 0
            case (nil, _): result = ordering.dialect.sortsNullsFirst ? -1 : 1
            case (_, nil): result = ordering.dialect.sortsNullsFirst ? 1 : -1
            case let (a?, b?): result = a < b ? -1 : a > b ? 1 : 0
            }
            if column.descending { result = -result }
            if result != 0 { return result }
        }
        return 0
    }

    /// The rows of `ranges`, each range's rows in its order (forwards:
    /// the ordering's; backwards: reversed), one range after the other.
    private func read(_ ranges: [RowOrdering.Range], _ rows: [[Int?]], _ ordering: RowOrdering) throws -> [[Int?]] {
        try ranges.flatMap { range in
            let kept = try rows.filter { try matches($0, range, ordering) }
            let sorted = kept.sorted { compare($0, $1, ordering) < 0 }
            return range.forward ? sorted : sorted.reversed()
        }
    }

    /// Whether `row` satisfies the condition of `range`, read term by term
    /// (`x = $n`, `x > $n`, `x < $n`, `x IS NULL`,
    /// `x IS NOT NULL`, joined by `AND`), in SQL's three-valued logic: a
    /// comparison with NULL is not true.
    private func matches(_ row: [Int?], _ range: RowOrdering.Range, _ ordering: RowOrdering) throws -> Bool {
        guard let condition = range.condition else { return true }
        var number = 1
        let sql = condition.sql(ordering.dialect, numbering: &number)
        XCTAssertEqual(number - 1, range.arguments.count, sql)
        var arguments = range.arguments[...]
        return try sql.components(separatedBy: " AND ").allSatisfy { term in
            let words = term.split(separator: " ", maxSplits: 1).map(String.init)
            let index = try XCTUnwrap(ordering.keyColumns.firstIndex { $0.expression == words[0] }, term)
            let value = row[index]
            let test = words[1]
            if test == "IS NULL" { return value == nil }
            if test == "IS NOT NULL" { return value != nil }
            let argument = try XCTUnwrap(arguments.popFirst(), term)
            let bound = Int.fromDatabaseValue(argument)
            if test.hasPrefix("IS ") || test.hasPrefix("= ") { return value == bound }
            guard let value, let bound else { return false }
            if test.hasPrefix("> ") { return value > bound }
            if test.hasPrefix("< ") { return value < bound }
            XCTFail("unknown term \(term)")
            return false
        }
    }
}

/// A deterministic random number generator (SplitMix64), so that a
/// failure can be replayed.
private struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E4B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
