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

    // MARK: - Where each database ends a token

    /// PostgreSQL ends a `--` comment at `\r` too (scan.l's
    /// `non_newline [^\n\r]`), SQLite at `\n` only (tokenize.c): read as a
    /// comment to the end, `) OR TRUE OR (` closed PostgreSQL's `WHERE (…)`.
    func testADashCommentEndsWhereTheDatabaseEndsIt() {
        let filter = "false -- x\r) OR TRUE OR (TRUE"
        XCTAssertEqual(problem(filter, .postgres), "unbalanced parentheses")
        XCTAssertEqual(SQLToken.tokens(of: "a -- b\rc\nd", .postgres).map(\.text), ["a", "c", "d"])
        // SQLite: one comment up to the `\n` that the wrapper puts after it.
        XCTAssertNil(problem(filter, .sqlite))
        XCTAssertEqual(SQLToken.tokens(of: "a -- b\rc\nd", .sqlite).map(\.text), ["a", "d"])
    }

    /// SQLite's comments do not nest: a `/*` inside one is read a
    /// character at a time (tokenize.c), so `/*/` after it ends the
    /// comment. Skipped whole, it hid `) OR (1=1`.
    func testASlashStarInsideASQLiteCommentNestsNothing() {
        let filter = "1 /* /*/ ) OR (1=1 /* */"
        XCTAssertEqual(problem(filter, .sqlite), "unbalanced parentheses")
        XCTAssertEqual(SQLToken.tokens(of: "a /* /*/ b", .sqlite).map(\.text), ["a", "b"])
        XCTAssertEqual(SQLToken.tokens(of: "a /* /**/ b", .sqlite).map(\.text), ["a", "b"])
        // PostgreSQL's do: three opened, one closed.
        XCTAssertEqual(problem(filter, .postgres), "unterminated comment")
    }

    /// A filter may switch `standard_conforming_strings` off for the rest
    /// of its read transaction: the window's later statements then read
    /// `'a\'` as an open string. Refused unless both readings agree the
    /// text is enclosed; one without a backslash reads the same.
    func testAPostgresTextMustBeEnclosedWithAndWithoutBackslashEscapes() {
        for filter in [
            #"set_config('standard_conforming_strings','off',true) <> '' AND 'a\' = ' ) OR (1=1 /* ' -- */"#,
            #"set_config('standard_conforming_strings','off',true) <> 'a\' OR name <> ' ) OR TRUE OR (TRUE /* ' -- */"#,
        ] {
            XCTAssertNil(SQLToken.scan(filter, .postgres).unterminated, filter)
            XCTAssertEqual(problem(filter, .postgres), "unbalanced parentheses", filter)
        }
        // The other way round: enclosed only with backslash escapes.
        XCTAssertEqual(problem(#"'a\' ) OR (1=1 -- '"#, .postgres), "unbalanced parentheses")
        XCTAssertNil(problem("name = 'it''s (' AND note <> E'\\\\' AND x = $$\\$$", .postgres))
        // SQLite has only the one reading.
        XCTAssertNil(problem(#"'a\' = ' ) OR (1=1 /* ' -- */"#, .sqlite))
        // Bit strings take no escapes under either reading.
        let bits = SQLToken.scan(#"B'\' = x"#, .postgres, backslashEscapes: true)
        XCTAssertEqual(bits.tokens.map(\.text), [#"B'\'"#, "=", "x"])
        XCTAssertEqual(SQLToken.scan(#"'\' = x"#, .postgres, backslashEscapes: true).unterminated, "'")
    }

    /// PostgreSQL's string goes on past blanks with a newline and a quote
    /// (scan.l's `quotecontinue`), in its first part's escape mode:
    /// `E'a'\n'\' '` is one `E'…'` string whose `\'` is a quote.
    func testAPostgresStringContinuesAfterANewlineAndAQuote() {
        let filter = "E'a'\n'\\' ' ) OR (1=1 /* ' */"
        XCTAssertEqual(problem(filter, .postgres), "unbalanced parentheses")
        XCTAssertEqual(problem("SELECT * FROM t WHERE x = \(filter)", .postgres), "unbalanced parentheses")
        let texts = { (sql: String, lexicon: SQLLexicon) in SQLToken.tokens(of: sql, lexicon).map(\.text) }
        XCTAssertEqual(texts("'a'\n'b' c", .postgres), ["'a'\n'b'", "c"])
        XCTAssertEqual(texts("'a' -- x\n  \r\n 'b'", .postgres), ["'a' -- x\n  \r\n 'b'"])
        XCTAssertEqual(texts("'a' -- x\n -- y\n'b'", .postgres), ["'a' -- x\n -- y\n'b'"])
        XCTAssertEqual(texts("'a'\n''", .postgres), ["'a'\n''"])
        // Without a newline, or with a `/* */` comment between: two strings.
        XCTAssertEqual(texts("'a' 'b'", .postgres), ["'a'", "'b'"])
        XCTAssertEqual(texts("'a' /* */\n'b'", .postgres), ["'a'", "'b'"])
        XCTAssertEqual(texts("'a'\n/* */'b'", .postgres), ["'a'", "'b'"])
        // Names and `$$` strings do not go on, nor SQLite's strings.
        XCTAssertEqual(texts("\"a\"\n\"b\"", .postgres), ["a", "b"])
        XCTAssertEqual(texts("$$a$$\n'b'", .postgres), ["$$a$$", "'b'"])
        XCTAssertEqual(texts("'a'\n'b'", .sqlite), ["'a'", "'b'"])
        XCTAssertEqual(SQLToken.scan("'a'\n'b", .postgres).unterminated, "'")
        XCTAssertEqual(SQLToken.scan("E'a'\n'b", .postgres).unterminated, "E'")
    }

    /// Both databases read any character beyond ASCII as part of a name
    /// (PostgreSQL's `ident_start [A-Za-z\200-\377_]`, SQLite's `IdChar`):
    /// `\u{A0}$$` is one name to PostgreSQL, not a blank and a string.
    func testOnlyASCIIBlanksSeparateTokens() {
        let filter = "id IN (SELECT 1 \u{A0}$$)) OR true OR ((SELECT true y$$)"
        XCTAssertEqual(problem(filter, .postgres), "unbalanced parentheses")
        for blank in ["\u{A0}", "\u{2028}", "\u{3000}"] {
            XCTAssertEqual(SQLToken.tokens(of: "SELECT 1 \(blank)$$ x", .postgres).map(\.text), ["SELECT", "1", "\(blank)$$", "x"])
            XCTAssertEqual(SQLToken.tokens(of: "a \(blank)b [c]", .sqlite).map(\.text), ["a", "\(blank)b", "c"])
        }
        for lexicon in [SQLLexicon.sqlite, .postgres] {
            XCTAssertEqual(SQLToken.tokens(of: "a \t\n\r\u{0B}\u{0C}b", lexicon).map(\.text), ["a", "b"])
        }
    }

    /// A letter after a number starts a name, unless it is an exponent
    /// with its digits (SQLite's hexadecimal `0x` aside): `1x$$` is `1`
    /// and the name `x$$` to PostgreSQL 14 (an error from 15), not `1x`
    /// and a `$$` string; `1e--(` is `1`, `e` and a comment.
    func testANumberEndsWhereANameWouldStart() {
        let filter = "id IN (SELECT 1x$$)) OR true OR ((SELECT true y$$)"
        XCTAssertEqual(problem(filter, .postgres), "unbalanced parentheses")
        XCTAssertEqual(problem("1e--(\n)", .postgres), "unbalanced parentheses")
        let tokens = { (sql: String, lexicon: SQLLexicon) in SQLToken.tokens(of: sql, lexicon).map { "\($0.kind) \($0.text)" } }
        XCTAssertEqual(tokens("1x$$ 1e$$ 0x1F 1_000", .postgres), [
            "number 1", "word x$$", "number 1", "word e$$", "number 0", "word x1F", "number 1", "word _000",
        ])
        XCTAssertEqual(tokens("12 1.5 .5 1. 1e3 1E+3 2.5e-3 1..2 1e+", .postgres), [
            "number 12", "number 1.5", "number .5", "number 1.", "number 1e3", "number 1E+3", "number 2.5e-3",
            "number 1", "symbol .", "number .2", "number 1", "word e", "symbol +",
        ])
        XCTAssertEqual(tokens("0x1F 0X1fg 0xg 1x 1_000", .sqlite), [
            "number 0x1F", "number 0X1f", "word g", "number 0", "word xg", "number 1", "word x", "number 1", "word _000",
        ])
    }
}
