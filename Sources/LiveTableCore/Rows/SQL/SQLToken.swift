import Foundation

/// How a database splits the text of a statement into tokens: which
/// quotes and comments it has. The viewer reads the text of a query or a
/// filter only to find the query's own top-level `ORDER BY`
/// (`QueryOrder`), and to refuse what could not stand inside the
/// statements it wraps around them (`SQLToken.enclosureProblem(_:_:)`),
/// never to run it.
///
/// For example:
///
/// ```swift
/// SQLToken.tokens(of: "SELECT [a b] FROM t", .sqlite)   // [a b] is one quoted name
/// SQLToken.tokens(of: "SELECT $$a ) b$$", .postgres)    // $$…$$ is one string
/// ```
public enum SQLLexicon: Equatable, Sendable {
    /// SQLite's: `'…'` strings, `"…"`, `` `…` `` and `[…]` names,
    /// `--` and `/* */` comments (not nested).
    case sqlite
    /// PostgreSQL's: `'…'` strings (`E'…'` with backslash escapes; a
    /// string goes on past a newline and another quote: `'a'\n'b'` is
    /// `'ab'`), `$$…$$` and `$tag$…$tag$` strings, `"…"` names, `--`
    /// comments and nested `/* /* */ */` comments.
    case postgres
}

/// One token of a SQL statement, with the depth of parentheses it stands
/// at: enough to find the clauses of the statement itself, not those of
/// its subqueries, window definitions or function calls.
///
/// The tokenizer knows quotes and comments, so that `')'`, `"order by"`
/// or `-- ORDER BY x` are never taken for syntax. It is the viewer's one
/// reading of SQL text: what it does not check (a misspelt keyword), the
/// database's own compiler refuses.
struct SQLToken: Equatable, Sendable {
    enum Kind: Equatable, Sendable {
        /// A keyword or an unquoted name, as written.
        case word
        /// A quoted name, without its quotes, doubled quotes made single.
        case quotedName
        /// A string, any quoting.
        case string
        /// A numeric literal, as written.
        case number
        /// `(`, `)`, `,`, `.`, `;`, or any other symbol (one character).
        case symbol
    }

    var kind: Kind
    /// The text: see `Kind`.
    var text: String
    /// The number of parentheses open around the token (a `(` counts
    /// those before it, a `)` those after it).
    var depth: Int
    /// Where the token is in the statement's unicode scalars.
    var range: Range<Int>

    /// True for a word that is `keyword`, ignoring ASCII case.
    func isKeyword(_ keyword: String) -> Bool {
        kind == .word && text.uppercased() == keyword
    }

    /// True for the symbol `symbol`.
    func isSymbol(_ symbol: Unicode.Scalar) -> Bool {
        kind == .symbol && text.unicodeScalars.first == symbol
    }

    /// True when `sql` holds more than one statement: a token after a `;`
    /// outside parentheses (a `;` in a string, a quoted name, a comment or
    /// a `$$` body ends nothing).
    ///
    /// For example:
    ///
    /// ```swift
    /// SQLToken.holdsSeveralStatements("SELECT ';'; -- done", .postgres) // false
    /// SQLToken.holdsSeveralStatements("SELECT 1; DELETE FROM t", .postgres) // true
    /// ```
    static func holdsSeveralStatements(_ sql: String, _ lexicon: SQLLexicon) -> Bool {
        let tokens = tokens(of: sql, lexicon)
        guard let end = tokens.firstIndex(where: { $0.depth == 0 && $0.isSymbol(";") }) else { return false }
        return tokens[end...].contains { !$0.isSymbol(";") }
    }

    /// True for a PostgreSQL parameter (`$1`): a word of `$` and digits.
    /// (`a$1` is a name, `$$…$$` a string, and SQLite's `$name` no word.)
    var isNumberedParameter: Bool {
        let scalars = text.unicodeScalars
        return kind == .word && scalars.first == "$" && scalars.dropFirst().first.map { ("0"..."9").contains($0) } == true
    }

    /// The tokens of `sql`, comments and blanks left out. Text that a
    /// quote or comment leaves open ends the tokens.
    static func tokens(of sql: String, _ lexicon: SQLLexicon) -> [SQLToken] {
        scan(sql, lexicon).tokens
    }

    /// The tokens of `sql` (see `tokens(of:_:)`), and what its end leaves
    /// open: how a string, quoted name, block comment or dollar-quoted
    /// string that never closes opens (`'`, `E'`, `"`, `` ` ``, `[`, `/*`,
    /// `$$`, `$tag$`), nil when nothing is left open. (A `--` comment
    /// ends with the text: it leaves nothing open.)
    ///
    /// - parameter backslashEscapes: true to read PostgreSQL's plain
    ///   `'…'` strings as `E'…'` ones, as a session with
    ///   `standard_conforming_strings = off` reads them (see
    ///   `readings(_:)`).
    static func scan(
        _ sql: String, _ lexicon: SQLLexicon, backslashEscapes: Bool = false) -> (tokens: [SQLToken], unterminated: String?)
    {
        var lexer = SQLLexer(scalars: Array(sql.unicodeScalars), lexicon: lexicon, plainStringsEscape: backslashEscapes)
        let tokens = lexer.tokens()
        return (tokens, lexer.unterminated)
    }

    /// Why `sql` can not stand inside the parentheses of a statement
    /// that the viewer wraps around it (`WHERE (…)`, `WITH "source" AS
    /// (…)`, `SELECT * FROM (…)`), or nil: a `)` that closes a `(` of the
    /// wrapper, or a `(`, string or comment that the wrapper's own `)`
    /// would close or fall into. The first found, from the left.
    ///
    /// For example:
    ///
    /// ```swift
    /// SQLToken.enclosureProblem("a) OR (1", .sqlite)          // .unbalancedParentheses
    /// SQLToken.enclosureProblem("name = 'x", .sqlite)         // .unterminated("'")
    /// SQLToken.enclosureProblem("$$)$$ = ')'", .postgres)     // nil
    /// ```
    ///
    /// In PostgreSQL, under both readings of plain `'…'` strings
    /// (`readings(_:)`): the text must stand inside parentheses however
    /// the session reads `'a\'`.
    static func enclosureProblem(_ sql: String, _ lexicon: SQLLexicon) -> SQLEnclosureProblem? {
        for backslashEscapes in readings(lexicon) {
            if let problem = enclosureProblem(scan(sql, lexicon, backslashEscapes: backslashEscapes)) { return problem }
        }
        return nil
    }

    /// How a database may read a plain `'…'` string's backslash: as
    /// itself (false), or as an escape (true). SQLite: only as itself.
    /// PostgreSQL: both. The viewer's sessions start with
    /// `standard_conforming_strings = on` (a backslash is itself), but a
    /// filter or query may call `set_config('standard_conforming_strings',
    /// 'off', true)`, and the later statements of the same read
    /// transaction, the window's own around the same text, are then read
    /// with backslash escapes: `'a\' = ' ) OR (1=1 /* '` is a string and a
    /// comment to the first reading, and closes `WHERE (…)` to the second.
    /// A text must be enclosable under both. A text without a backslash
    /// in a plain string (any usual filter) reads the same either way, so
    /// this refuses nothing that an ordinary filter needs.
    static func readings(_ lexicon: SQLLexicon) -> [Bool] {
        lexicon == .postgres ? [false, true] : [false]
    }

    /// The problem of one scan (see `enclosureProblem(_:_:)`).
    private static func enclosureProblem(
        _ scan: (tokens: [SQLToken], unterminated: String?)) -> SQLEnclosureProblem?
    {
        let (tokens, unterminated) = scan
        var depth = 0
        for token in tokens where token.kind == .symbol {
            if token.isSymbol("(") { depth += 1 }
            if token.isSymbol(")") { depth -= 1 }
            if depth < 0 { return .unbalancedParentheses }
        }
        // What is left open ends the text: it comes after every token.
        if let unterminated { return .unterminated(unterminated) }
        return depth == 0 ? nil : .unbalancedParentheses
    }
}

/// What keeps a piece of SQL from standing inside the parentheses of a
/// statement around it (see `SQLToken.enclosureProblem(_:_:)`).
enum SQLEnclosureProblem: Equatable, Sendable, CustomStringConvertible {
    /// A `)` that closes no `(` of the text, or a `(` that it leaves open.
    case unbalancedParentheses
    /// A string, quoted name, block comment or dollar-quoted string left
    /// open at the end: how it opens (`'`, `/*`, `$$`…).
    case unterminated(String)

    /// "unbalanced parentheses", "unterminated '", "unterminated comment".
    var description: String {
        switch self {
        case .unbalancedParentheses: return "unbalanced parentheses"
        case .unterminated("/*"): return "unterminated comment"
        case let .unterminated(opening): return "unterminated \(opening)"
        }
    }
}

/// Splits a statement into `SQLToken`s, one scan of its scalars.
private struct SQLLexer {
    let scalars: [Unicode.Scalar]
    let lexicon: SQLLexicon
    /// Whether a plain `'…'` string takes backslash escapes (PostgreSQL's
    /// `standard_conforming_strings = off`).
    let plainStringsEscape: Bool
    var index = 0
    var depth = 0
    /// How what the text leaves open at its end opens, or nil.
    private(set) var unterminated: String?

    init(scalars: [Unicode.Scalar], lexicon: SQLLexicon, plainStringsEscape: Bool = false) {
        self.scalars = scalars
        self.lexicon = lexicon
        self.plainStringsEscape = lexicon == .postgres && plainStringsEscape
    }

    mutating func tokens() -> [SQLToken] {
        var tokens: [SQLToken] = []
        while index < scalars.count {
            let start = index
            guard let kind = next() else { continue }
            let text: String
            switch kind {
            case .quotedName:
                text = unquotedName(scalars[start..<index])
            default:
                text = String(String.UnicodeScalarView(scalars[start..<index]))
            }
            var token = SQLToken(kind: kind, text: text, depth: depth, range: start..<index)
            if token.isSymbol("(") {
                depth += 1
            } else if token.isSymbol(")") {
                depth -= 1
                token.depth = depth
            }
            tokens.append(token)
        }
        return tokens
    }

    private func at(_ offset: Int) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    /// Reads one token, or a blank or a comment (nil).
    private mutating func next() -> SQLToken.Kind? {
        let scalar = scalars[index]
        switch scalar {
        case " ", "\t", "\n", "\r", "\u{0B}", "\u{0C}":
            // Only ASCII blanks: both databases read any other character
            // beyond ASCII as part of a name (PostgreSQL's scan.l
            // `ident_start [A-Za-z\200-\377_]`, SQLite's `IdChar`), so
            // `\u{A0}$$` is one name to PostgreSQL, no blank and a string.
            index += 1
            return nil
        case "-" where at(1) == "-":
            // PostgreSQL ends a `--` comment at `\r` too (scan.l's
            // `non_newline [^\n\r]`); SQLite at `\n` only (tokenize.c).
            while index < scalars.count, scalars[index] != "\n", lexicon == .sqlite || scalars[index] != "\r" {
                index += 1
            }
            return nil
        case "/" where at(1) == "*":
            skipBlockComment()
            return nil
        case "'":
            skipQuoted(until: "'", backslashEscapes: plainStringsEscape, from: index)
            return .string
        case "\"":
            skipQuoted(until: "\"", backslashEscapes: false, from: index)
            return .quotedName
        case "`" where lexicon == .sqlite:
            skipQuoted(until: "`", backslashEscapes: false, from: index)
            return .quotedName
        case "[" where lexicon == .sqlite:
            skipQuoted(until: "]", backslashEscapes: false, from: index)
            return .quotedName
        case "$" where lexicon == .postgres:
            if let tag = dollarQuoteTag() {
                skipDollarQuoted(tag)
                return .string
            }
            index += 1
            skipWordCharacters()
            return .word
        case "0"..."9":
            skipNumber()
            return .number
        case "." where at(1).map(isDigit) == true:
            skipNumber()
            return .number
        case _ where isWordStart(scalar):
            index += 1
            if lexicon == .postgres, at(0) == "'" {
                switch scalar {
                case "E", "e":
                    // E'it\'s': a string whose backslash escapes a quote.
                    skipQuoted(until: "'", backslashEscapes: true, from: index - 1)
                    return .string
                case "B", "b", "X", "x":
                    // Bit strings: a backslash is itself whatever
                    // standard_conforming_strings says (scan.l's
                    // `xbinside [^']*`).
                    skipQuoted(until: "'", backslashEscapes: false, from: index - 1)
                    return .string
                default:
                    break
                }
            }
            skipWordCharacters()
            return .word
        default:
            index += 1
            return .symbol
        }
    }

    /// Skips from the opening quote to after the closing one; a doubled
    /// closing quote is the quote itself (`'it''s'`), and so is one after
    /// a backslash in an `E'…'` string. A PostgreSQL string goes on, in
    /// the same escape mode, at a quote after a newline
    /// (`continuingQuote()`).
    ///
    /// - parameter token: where the token starts: the quote, or the `E`
    ///   or `B` before it.
    private mutating func skipQuoted(until close: Unicode.Scalar, backslashEscapes: Bool, from token: Int) {
        let quote = index
        index += 1
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            if backslashEscapes, scalar == "\\" {
                index += 1
            } else if scalar == close {
                // `]` is never doubled: SQLite's `[…]` has no escape.
                if close != "]", at(0) == close {
                    index += 1
                } else if close == "'", lexicon == .postgres, let next = continuingQuote() {
                    index = next + 1
                } else {
                    return
                }
            }
        }
        unterminated = String(String.UnicodeScalarView(scalars[token...quote]))
        index = scalars.count
    }

    /// The quote that continues the PostgreSQL string that a quote just
    /// before `index` closed, or nil: scan.l's `quotecontinue`,
    /// `{quote}{whitespace_with_newline}{quote}`, blanks and `--`
    /// comments that hold at least one newline, then a quote (`'a'\n'b'`
    /// is `'ab'`, `E'a'\n'\' '` one `E'…'` string). A `/* */` comment
    /// between ends the string. SQLite has no such rule (tokenize.c ends
    /// a string at a quote that is not doubled).
    private func continuingQuote() -> Int? {
        var next = index
        var newline = false
        while next < scalars.count {
            switch scalars[next] {
            case "\n", "\r":
                newline = true
                next += 1
            case " ", "\t", "\u{0C}", "\u{0B}":
                // PostgreSQL 15 has no `\v` blank (an error there), 16 has.
                next += 1
            case "-" where next + 1 < scalars.count && scalars[next + 1] == "-":
                // To the newline, which the loop then counts.
                while next < scalars.count, scalars[next] != "\n", scalars[next] != "\r" { next += 1 }
            case "'":
                return newline ? next : nil
            default:
                return nil
            }
        }
        return nil
    }

    /// Skips a `/* … */` comment, nested ones too in PostgreSQL.
    private mutating func skipBlockComment() {
        var open = 0
        while index < scalars.count {
            if scalars[index] == "/", at(1) == "*", lexicon == .postgres || open == 0 {
                // SQLite's comments do not nest: a `/*` inside one is two
                // characters of it, and its `*` may start the `*/` that
                // ends it (`/* /*/` is one comment to tokenize.c).
                open += 1
                index += 2
            } else if scalars[index] == "*", at(1) == "/" {
                open -= 1
                index += 2
                if open == 0 { return }
            } else {
                index += 1
            }
        }
        unterminated = "/*"
    }

    /// The tag of a dollar quote that starts here (`$$`: "", `$fn$`:
    /// "fn"), or nil for a `$1` parameter or a `$` in a name.
    private func dollarQuoteTag() -> String? {
        var end = index + 1
        while end < scalars.count, scalars[end] != "$" {
            guard isWordStart(scalars[end]) || (end > index + 1 && isDigit(scalars[end])) else { return nil }
            end += 1
        }
        guard end < scalars.count else { return nil }
        return String(String.UnicodeScalarView(scalars[(index + 1)..<end]))
    }

    /// Skips `$tag$ … $tag$`.
    private mutating func skipDollarQuoted(_ tag: String) {
        let delimiter = Array("$\(tag)$".unicodeScalars)
        index += delimiter.count
        while index < scalars.count {
            if scalars[index] == "$", index + delimiter.count <= scalars.count,
                Array(scalars[index..<(index + delimiter.count)]) == delimiter
            {
                index += delimiter.count
                return
            }
            index += 1
        }
        unterminated = String(String.UnicodeScalarView(delimiter))
    }

    /// Skips `12`, `1.5`, `.5`, `1e-3`, and SQLite's `0x1F`: the digits
    /// of a number and nothing after them. A letter that is no exponent
    /// starts a name to the server (`1x$$` is `1` and the name `x$$` to
    /// PostgreSQL 14, an error from 15 and to SQLite), so it ends the
    /// number here too: swallowed, `x` would leave `$$` to open a string.
    /// PostgreSQL 16's `0x1F`, `0o17`, `0b1` and `1_000` are then a `0`
    /// and a word: the same characters, read as one token by the word.
    private mutating func skipNumber() {
        if lexicon == .sqlite, scalars[index] == "0", at(1) == "x" || at(1) == "X", at(2).map(isHexDigit) == true {
            index += 2
            while index < scalars.count, isHexDigit(scalars[index]) { index += 1 }
            return
        }
        skipDigits()
        // `1.5`, `1.`, `.5`; not the first `.` of `1..2`.
        if at(0) == ".", at(1) != "." {
            index += 1
            skipDigits()
        }
        // An exponent only with its digits: `1e` and `1e+` are `1` and
        // the name `e` to both databases.
        if at(0) == "e" || at(0) == "E" {
            if at(1).map(isDigit) == true {
                index += 1
            } else if at(1) == "+" || at(1) == "-", at(2).map(isDigit) == true {
                index += 2
            } else {
                return
            }
            skipDigits()
        }
    }

    private mutating func skipDigits() {
        while index < scalars.count, isDigit(scalars[index]) { index += 1 }
    }

    private func isHexDigit(_ scalar: Unicode.Scalar) -> Bool {
        isDigit(scalar) || ("a"..."f").contains(scalar) || ("A"..."F").contains(scalar)
    }

    private mutating func skipWordCharacters() {
        while index < scalars.count, isWordStart(scalars[index]) || isDigit(scalars[index]) || scalars[index] == "$" {
            index += 1
        }
    }

    private func isDigit(_ scalar: Unicode.Scalar) -> Bool {
        ("0"..."9").contains(scalar)
    }

    /// A letter, `_`, or any character beyond ASCII: both databases take
    /// those in unquoted names.
    private func isWordStart(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || scalar == "_" || scalar.value > 127
    }

    /// The name inside a quoted name's quotes, doubled quotes made single.
    private func unquotedName(_ quoted: ArraySlice<Unicode.Scalar>) -> String {
        guard let open = quoted.first else { return "" }
        let close: Unicode.Scalar = open == "[" ? "]" : open
        var inner = quoted.dropFirst()
        if inner.last == close { inner = inner.dropLast() }
        let text = String(String.UnicodeScalarView(inner))
        guard open != "[" else { return text }
        return text.replacingOccurrences(of: String(close) + String(close), with: String(close))
    }
}
