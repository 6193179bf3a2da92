import Foundation
import XCTest
@testable import LiveTableCore

/// A query's own top-level `ORDER BY`, found by the tokenizer and kept
/// as the first columns of the window's keyset: names, positions,
/// directions, NULLs, what ends the clause, and what is not kept and why.
final class QueryOrderTests: XCTestCase {
    private typealias Term = QueryOrder.Term

    private func order(
        _ sql: String, _ columns: [String] = ["name", "score", "team"], _ dialect: SQLDialect = .sqlite
    ) -> QueryOrder? {
        QueryOrder(query: sql, columnNames: columns, dialect: dialect)
    }

    // MARK: - Kept

    func testNamesAndPositionsWithTheirDirections() {
        XCTAssertEqual(order("SELECT name, score, team FROM p ORDER BY score DESC")?.terms, [Term(column: 1, descending: true)])
        XCTAssertEqual(
            order("select name, score, team from p order by Score desc, 1 asc, team")?.terms,
            [Term(column: 1, descending: true), Term(column: 0, descending: false), Term(column: 2, descending: false)])
        XCTAssertEqual(order("SELECT * FROM p ORDER BY 3 DESC")?.terms, [Term(column: 2, descending: true)])
        XCTAssertNil(order("SELECT * FROM p ORDER BY 3 DESC")?.unkept)
        XCTAssertEqual(order("SELECT * FROM p ORDER BY name, 1 DESC, score")?.terms,
                       [Term(column: 0, descending: false), Term(column: 1, descending: false)])
    }

    func testNoOrderByIsNil() {
        XCTAssertNil(order("SELECT name, score, team FROM p"))
        XCTAssertNil(order("SELECT name, score, team FROM p WHERE note = 'ORDER BY score'"))
        XCTAssertNil(order("SELECT name, score, team FROM p -- ORDER BY score\n"))
        XCTAssertNil(order("SELECT name, score, team FROM p /* ORDER BY score */"))
        XCTAssertNil(order("SELECT \"ORDER BY\", score, team FROM p"))
    }

    func testQuotedNamesOfEachDialect() {
        let columns = ["a b", "Score", "order"]
        XCTAssertEqual(order("SELECT * FROM p ORDER BY [a b] DESC", columns)?.terms, [Term(column: 0, descending: true)])
        XCTAssertEqual(order("SELECT * FROM p ORDER BY `a b`", columns)?.terms, [Term(column: 0, descending: false)])
        XCTAssertEqual(order("SELECT * FROM p ORDER BY \"order\"", columns)?.terms, [Term(column: 2, descending: false)])
        // SQLite compares names ignoring case; PostgreSQL folds an
        // unquoted one to lower case and compares a quoted one exactly.
        XCTAssertEqual(order("SELECT * FROM p ORDER BY score", columns)?.terms, [Term(column: 1, descending: false)])
        XCTAssertEqual(order("SELECT * FROM p ORDER BY \"Score\" DESC", columns, .postgres)?.terms, [Term(column: 1, descending: true)])
        XCTAssertEqual(order("SELECT * FROM p ORDER BY Score", columns, .postgres)?.unkept?.reason, "no result column has this name")
        XCTAssertEqual(order("SELECT * FROM p ORDER BY \"a \"\"b\"\"\"", ["a \"b\""], .postgres)?.terms, [Term(column: 0, descending: false)])
    }

    func testSubqueriesWindowsAndAggregatesKeepTheirOwnOrderBy() {
        let sql = """
            WITH top AS (SELECT * FROM p ORDER BY score DESC LIMIT 3)
            SELECT name, (SELECT max(x) FROM q ORDER BY x) AS score,
                   rank() OVER (PARTITION BY team ORDER BY score DESC) AS team
            FROM top ORDER BY team, name DESC
            """
        XCTAssertEqual(order(sql)?.terms, [Term(column: 2, descending: false), Term(column: 0, descending: true)])
        XCTAssertNil(order("SELECT name, rank() OVER (ORDER BY score) AS score, team FROM p"))
        XCTAssertNil(order("SELECT string_agg(name, ',' ORDER BY name) AS name, 1, 2 FROM p", .init(), .postgres))
        XCTAssertNil(order("SELECT * FROM (SELECT * FROM p ORDER BY score) AS s"))
    }

    /// `(SELECT … ORDER BY score DESC)` is the statement without its
    /// parentheses (PostgreSQL runs it; SQLite refuses it when it
    /// compiles): its order is kept, as without them.
    func testParenthesesAroundTheWholeStatementAreSeenThrough() {
        for dialect in [SQLDialect.sqlite, .postgres] {
            let columns = ["name", "score", "team"]
            XCTAssertEqual(
                order("(SELECT name, score, team FROM p ORDER BY score DESC)", columns, dialect)?.terms,
                [Term(column: 1, descending: true)], "\(dialect.lexicon)")
            XCTAssertEqual(
                order(" ( (SELECT * FROM p ORDER BY score DESC, 1 LIMIT 3) ) ; -- done", columns, dialect)?.terms,
                [Term(column: 1, descending: true), Term(column: 0, descending: false)], "\(dialect.lexicon)")
            XCTAssertEqual(
                order("(SELECT * FROM p ORDER BY lower(name))", columns, dialect)?.unkept?.text, "lower(name)", "\(dialect.lexicon)")
            // Parentheses around a part: its ORDER BY is not the statement's.
            XCTAssertNil(order("(SELECT * FROM p ORDER BY score) UNION (SELECT * FROM q)", columns, dialect), "\(dialect.lexicon)")
            XCTAssertNil(order("(SELECT * FROM p ORDER BY score) LIMIT 3", columns, dialect), "\(dialect.lexicon)")
            XCTAssertNil(order("(SELECT * FROM p) UNION (SELECT * FROM q ORDER BY score)", columns, dialect), "\(dialect.lexicon)")
            XCTAssertEqual(
                order("((SELECT * FROM p ORDER BY score) ORDER BY team DESC)", columns, dialect)?.terms,
                [Term(column: 2, descending: true)], "\(dialect.lexicon)")
            XCTAssertNil(order("()", columns, dialect), "\(dialect.lexicon)")
        }
    }

    func testStringsAndCommentsHideParenthesesAndKeywords() {
        XCTAssertEqual(
            order("SELECT name, ')(' AS score, team FROM p /* ) */ -- (\n ORDER BY /* x */ score -- y\n DESC")?.terms,
            [Term(column: 1, descending: true)])
        XCTAssertEqual(
            order("SELECT name, 'it''s (' AS score, team FROM p ORDER BY 2 DESC")?.terms, [Term(column: 1, descending: true)])
        // PostgreSQL's $$…$$ and E'…' strings, and its nested comments.
        XCTAssertEqual(
            order("SELECT name, $$ ) ORDER BY x $$ AS score, team FROM p /* a /* b */ ORDER BY x */ ORDER BY score DESC",
                  .init(["name", "score", "team"]), .postgres)?.terms,
            [Term(column: 1, descending: true)])
        XCTAssertEqual(
            order("SELECT name, $f$ ) $f$ AS score, E'\\' ) ' AS team FROM p ORDER BY team", .init(["name", "score", "team"]), .postgres)?.terms,
            [Term(column: 2, descending: false)])
        // SQLite has no dollar quotes, nor PostgreSQL brackets: `[` is a
        // subscript there.
        XCTAssertEqual(order("SELECT a[1] AS name, 2, 3 FROM p ORDER BY name", .init(["name", "?column?", "c"]), .postgres)?.terms,
                       [Term(column: 0, descending: false)])
    }

    func testWhatFollowsTheClauseEndsIt() {
        for tail in ["LIMIT 10", "LIMIT 10 OFFSET 5", "OFFSET 5 ROWS FETCH FIRST 3 ROWS ONLY", "FOR SHARE", ";", "; -- done"] {
            XCTAssertEqual(
                order("SELECT name, score, team FROM p ORDER BY score DESC \(tail)", .init(["name", "score", "team"]), .postgres)?.terms,
                [Term(column: 1, descending: true)], tail)
        }
        XCTAssertEqual(order("SELECT * FROM p ORDER BY score LIMIT (SELECT 3)")?.terms, [Term(column: 1, descending: false)])
    }

    func testNullsOutsideTheDialectsDefaultAreKept() {
        // SQLite: NULL first ascending, last descending.
        XCTAssertEqual(order("SELECT * FROM p ORDER BY score NULLS FIRST")?.terms, [Term(column: 1, descending: false)])
        XCTAssertEqual(order("SELECT * FROM p ORDER BY score NULLS LAST")?.terms,
                       [Term(column: 1, descending: false, nullsFirst: false)])
        XCTAssertEqual(order("SELECT * FROM p ORDER BY score DESC NULLS FIRST")?.terms,
                       [Term(column: 1, descending: true, nullsFirst: true)])
        // PostgreSQL: NULL last ascending, first descending.
        XCTAssertEqual(order("SELECT * FROM p ORDER BY score DESC NULLS FIRST", .init(["name", "score"]), .postgres)?.terms,
                       [Term(column: 1, descending: true)])
        XCTAssertEqual(order("SELECT * FROM p ORDER BY score DESC NULLS LAST", .init(["name", "score"]), .postgres)?.terms,
                       [Term(column: 1, descending: true, nullsFirst: false)])
    }

    // MARK: - Not kept

    func testExpressionsAreNotKeptNorAnyTermAfterThem() {
        let cases: [(String, String, String)] = [
            ("lower(name)", "lower(name)", "an expression"),
            ("score + 1 DESC", "score + 1 DESC", "an expression"),
            ("name COLLATE NOCASE", "name COLLATE NOCASE", "a collation of its own"),
            ("p.score", "p.score", "a qualified name"),
            ("price", "price", "no result column has this name"),
            ("4", "4", "no result column at this position"),
            ("0", "0", "no result column at this position"),
            ("NULL", "NULL", "an expression"),
            ("CASE WHEN score > 1 THEN 0 END", "CASE WHEN score > 1 THEN 0 END", "an expression"),
        ]
        for (term, text, reason) in cases {
            let order = order("SELECT name, score, team FROM p ORDER BY \(term), name")
            XCTAssertEqual(order?.terms, [], term)
            XCTAssertEqual(order?.unkept, QueryOrder.UnkeptTerm(text: text, reason: reason), term)
        }
        let partly = order("SELECT name, score, team FROM p ORDER BY score DESC, lower(name), team")
        XCTAssertEqual(partly?.terms, [Term(column: 1, descending: true)])
        XCTAssertEqual(partly?.unkept?.text, "lower(name)")
        XCTAssertEqual(
            partly?.unkeptNotice,
            "the query's ORDER BY is kept up to lower(name), which is not (an expression): ties shown by all columns ↑")
        XCTAssertEqual(
            order("SELECT * FROM p ORDER BY lower(\nname)")?.unkeptNotice,
            "the query's ORDER BY lower( name) is not kept (an expression): shown by all columns ↑")
        XCTAssertEqual(order("SELECT * FROM p ORDER BY x USING <", .init(["x"]), .postgres)?.unkept?.reason, "an operator of its own")
        XCTAssertEqual(order("SELECT a AS x, b AS x FROM p ORDER BY x", .init(["x", "x"]))?.unkept?.reason, "2 result columns have this name")
    }

    // MARK: - The keyset

    /// The kept terms come first in the keyset of a query opened without a
    /// sort, every column after them; a sort column replaces them.
    func testTheOrderingOfAQueryStartsWithItsTerms() throws {
        let source = RowSource.query(
            "SELECT name, score, team FROM p ORDER BY score DESC NULLS FIRST, 1", columnNames: ["name", "score", "team"],
            dialect: .sqlite)
        let ordering = try RowOrdering(source)
        XCTAssertEqual(ordering.keyColumns, [
            .init(expression: "c1", descending: true, nullsFirst: true),
            .init(expression: "c0", descending: false),
            .init(expression: "c2", descending: false),
        ])
        XCTAssertNil(ordering.sortColumn)
        XCTAssertEqual(ordering.orderBy(forward: true), "c1 DESC NULLS FIRST, c0, c2")
        XCTAssertEqual(ordering.orderBy(forward: false), "c1 NULLS LAST, c0 DESC, c2 DESC")
        XCTAssertEqual(try RowOrdering(source, sortColumn: "team").keyColumns.map(\.expression), ["c2", "c0", "c1"])
    }

    func testSeveralStatements() {
        XCTAssertFalse(SQLToken.holdsSeveralStatements("SELECT ';' AS x; -- done; DELETE", .postgres))
        XCTAssertFalse(SQLToken.holdsSeveralStatements("SELECT $$;$$;;", .postgres))
        XCTAssertTrue(SQLToken.holdsSeveralStatements("SELECT 1; DELETE FROM t", .postgres))
        XCTAssertTrue(SQLToken.holdsSeveralStatements("SELECT 1;SELECT 2", .sqlite))
    }
}
