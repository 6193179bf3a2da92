import Foundation
import XCTest
@testable import LiveTableCore

/// The one reading of SQL text (`SQLToken`): what a filter or a query
/// leaves open or closes too soon, a PostgreSQL parameter, each in the
/// dialect's own quotes and comments.
final class SQLTokenTests: XCTestCase {
    private func problem(_ sql: String, _ lexicon: SQLLexicon = .sqlite) -> String? {
        SQLToken.enclosureProblem(sql, lexicon)?.description
    }

    func testBalancedTextHasNoProblem() {
        XCTAssertNil(problem("SELECT (1 + (2)) AS x FROM t WHERE a IN (1, 2) -- (\n"))
        XCTAssertNil(problem("name = ')(' AND [a (b] = \"c)\" AND `(` > 0 /* ( */"))
        XCTAssertNil(problem("name = 'it''s (' OR note = \"a \"\" (\""))
        XCTAssertNil(problem("", .postgres))
        // PostgreSQL's dollar quotes, E'…' escapes and nested comments.
        XCTAssertNil(problem("$$($$ = $f$ ) $f$ AND E'\\' (' = x /* a /* ( */ ) */", .postgres))
        // A `[` is a subscript there, not a quote.
        XCTAssertNil(problem("tags[1] = 'a' AND (tags[2] = ']')", .postgres))
    }

    func testAParenthesisThatClosesNothingOrIsLeftOpen() {
        XCTAssertEqual(problem("1) OR (1"), "unbalanced parentheses")
        XCTAssertEqual(problem("SELECT (1"), "unbalanced parentheses")
        XCTAssertEqual(problem("SELECT 1)"), "unbalanced parentheses")
        XCTAssertEqual(problem("(SELECT 1)) UNION ((SELECT 2)"), "unbalanced parentheses")
        // Balanced to a scan that knows no dollar quotes, not to PostgreSQL.
        XCTAssertEqual(problem("$$($$ = 'x') OR (TRUE) OR ($$)$$ = ''", .postgres), "unbalanced parentheses")
        XCTAssertEqual(problem("E'\\'' = ')'", .postgres), nil)
        XCTAssertEqual(problem("E'\\'' = ')'", .sqlite), "unbalanced parentheses")
    }

    func testWhatTheEndLeavesOpenIsNamed() {
        XCTAssertEqual(problem("SELECT 'open"), "unterminated '")
        XCTAssertEqual(problem("SELECT 'it''"), "unterminated '")
        XCTAssertEqual(problem("SELECT \"open"), "unterminated \"")
        XCTAssertEqual(problem("SELECT `open"), "unterminated `")
        XCTAssertEqual(problem("SELECT [open"), "unterminated [")
        XCTAssertEqual(problem("SELECT 1 /* open"), "unterminated comment")
        XCTAssertEqual(problem("SELECT 1 /* a /* b */", .postgres), "unterminated comment")
        XCTAssertNil(problem("SELECT 1 /* a /* b */"), "SQLite's comments do not nest")
        XCTAssertEqual(problem("SELECT $$ ) $", .postgres), "unterminated $$")
        XCTAssertEqual(problem("SELECT $body$ x $$", .postgres), "unterminated $body$")
        XCTAssertEqual(problem("SELECT E'\\'", .postgres), "unterminated E'")
        // A string left open inside parentheses: the string is the cause.
        XCTAssertEqual(problem("(name = 'x"), "unterminated '")
        // A `--` comment ends with the text.
        XCTAssertNil(problem("SELECT 1 -- (open"))
    }

    /// A backslash that ends an `E'…'` string read past the text: the
    /// token's text then trapped.
    func testABackslashAtTheEndOfAnEscapedStringIsReadSafely() {
        let scan = SQLToken.scan("SELECT E'abc\\", .postgres)
        XCTAssertEqual(scan.tokens.map(\.text), ["SELECT", "E'abc\\"])
        XCTAssertEqual(scan.unterminated, "E'")
    }

    func testNumberedParametersOfPostgreSQL() {
        let parameters = { (sql: String) in SQLToken.tokens(of: sql, .postgres).filter(\.isNumberedParameter).map(\.text) }
        XCTAssertEqual(parameters("id = $1 AND x IN ($12)"), ["$1", "$12"])
        XCTAssertEqual(parameters("a$1 = '$2' AND \"$3\" = $$ $4 $$ AND $q$ $5 $q$ <> '' -- $6"), [])
        XCTAssertEqual(SQLToken.tokens(of: "a = $1", .sqlite).filter(\.isNumberedParameter), [])
    }
}
