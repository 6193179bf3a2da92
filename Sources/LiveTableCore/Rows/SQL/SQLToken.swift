import Foundation

/// Which quotes and comments a database's statements have. The viewer reads
/// a query's or filter's text only to find its own top-level `ORDER BY`
/// (`QueryOrder`) and to refuse what could not stand inside the statements
/// wrapped around it, never to run it.
package enum SQLLexicon: Equatable, Sendable {
    /// `'…'`, `"…"`, `` `…` ``, `[…]`, `--`, `/* */` (not nested).
    case sqlite
    /// `E'…'` with backslash escapes; a string goes on past a newline and
    /// another quote (`'a'\n'b'` is `'ab'`); `$tag$…$tag$`; nested comments.
    case postgres
}

/// A token and the depth of parentheses it stands at: enough to find the
/// statement's own clauses, not those of its subqueries. The tokenizer knows
/// quotes and comments, so that `')'` or `-- ORDER BY x` are never syntax;
/// what it does not check (a misspelt keyword) the database refuses.
struct SQLToken: Equatable, Sendable {
    enum Kind: Equatable, Sendable {
        case word
        /// Without its quotes, doubled quotes made single.
        case quotedName
        case string
        case number
        /// One character.
        case symbol
    }

    var kind: Kind
    var text: String
    /// A `(` counts the parentheses before it, a `)` those after it.
    var depth: Int
    /// In the statement's unicode scalars.
    var range: Range<Int>

    func isKeyword(_ keyword: String) -> Bool {
        kind == .word && text.uppercased() == keyword
    }

    func isSymbol(_ symbol: Unicode.Scalar) -> Bool {
        kind == .symbol && text.unicodeScalars.first == symbol
    }

    /// A token after a `;` outside parentheses (a `;` in a string, a quoted
    /// name, a comment or a `$$` body ends nothing).
    static func holdsSeveralStatements(_ sql: String, _ lexicon: SQLLexicon) -> Bool {
        let tokens = tokens(of: sql, lexicon)
        guard let end = tokens.firstIndex(where: { $0.depth == 0 && $0.isSymbol(";") }) else { return false }
        return tokens[end...].contains { !$0.isSymbol(";") }
    }

    /// `$1`; `a$1` is a name, `$$…$$` a string, and SQLite's `$name` no word.
    var isNumberedParameter: Bool {
        let scalars = text.unicodeScalars
        return kind == .word && scalars.first == "$" && scalars.dropFirst().first.map { ("0"..."9").contains($0) } == true
    }

    /// Comments and blanks left out. Text a quote or comment leaves open
    /// ends the tokens.
    static func tokens(of sql: String, _ lexicon: SQLLexicon) -> [SQLToken] {
        scan(sql, lexicon).tokens
    }

    /// Also how what the end leaves open opens (`'`, `E'`, `/*`, `$tag$`…).
    /// `backslashEscapes` reads PostgreSQL's plain strings as `E'…'` ones
    /// (see `readings(_:)`).
    static func scan(
        _ sql: String, _ lexicon: SQLLexicon, backslashEscapes: Bool = false) -> (tokens: [SQLToken], unterminated: String?)
    {
        var lexer = SQLLexer(scalars: Array(sql.unicodeScalars), lexicon: lexicon, plainStringsEscape: backslashEscapes)
        let tokens = lexer.tokens()
        return (tokens, lexer.unterminated)
    }

    /// Why `sql` can not stand inside the parentheses the viewer wraps
    /// around it (`WHERE (…)`, `WITH "source" AS (…)`): a `)` that closes
    /// the wrapper's `(`, or a `(`, string or comment that the wrapper's `)`
    /// would close or fall into. Under both of PostgreSQL's readings.
    static func enclosureProblem(_ sql: String, _ lexicon: SQLLexicon) -> SQLEnclosureProblem? {
        for backslashEscapes in readings(lexicon) {
            if let problem = enclosureProblem(scan(sql, lexicon, backslashEscapes: backslashEscapes)) { return problem }
        }
        return nil
    }

    /// How a plain `'…'` string's backslash may be read: as itself, or, in
    /// PostgreSQL, as an escape too. Sessions start with
    /// `standard_conforming_strings = on`, but a filter may call
    /// `set_config('standard_conforming_strings', 'off', true)`, and the
    /// window's later statements of the same read around the same text are
    /// then read with escapes: `'a\' = ' ) OR (1=1 /* '` is a string and a
    /// comment to one reading and closes `WHERE (…)` to the other. A usual
    /// filter, without a backslash in a plain string, reads the same either way.
    static func readings(_ lexicon: SQLLexicon) -> [Bool] {
        lexicon == .postgres ? [false, true] : [false]
    }

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
        // What is left open comes after every token.
        if let unterminated { return .unterminated(unterminated) }
        return depth == 0 ? nil : .unbalancedParentheses
    }
}

enum SQLEnclosureProblem: Equatable, Sendable, CustomStringConvertible {
    /// A `)` that closes no `(` of the text, or a `(` left open.
    case unbalancedParentheses
    /// Something left open at the end: how it opens (`'`, `/*`, `$$`…).
    case unterminated(String)

    var description: String {
        switch self {
        case .unbalancedParentheses: return "unbalanced parentheses"
        case .unterminated("/*"): return "unterminated comment"
        case let .unterminated(opening): return "unterminated \(opening)"
        }
    }
}

private struct SQLLexer {
    let scalars: [Unicode.Scalar]
    let lexicon: SQLLexicon
    /// PostgreSQL's `standard_conforming_strings = off`.
    let plainStringsEscape: Bool
    var index = 0
    var depth = 0
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

    /// Nil for a blank or a comment.
    private mutating func next() -> SQLToken.Kind? {
        let scalar = scalars[index]
        switch scalar {
        case " ", "\t", "\n", "\r", "\u{0B}", "\u{0C}":
            // Only ASCII blanks: both databases read any other character
            // beyond ASCII as part of a name (scan.l's `ident_start`,
            // SQLite's `IdChar`): `\u{A0}$$` is a name, not a blank and a string.
            index += 1
            return nil
        case "-" where at(1) == "-":
            // PostgreSQL ends a `--` comment at `\r` too; SQLite at `\n` only.
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
                    skipQuoted(until: "'", backslashEscapes: true, from: index - 1)
                    return .string
                case "B", "b", "X", "x":
                    // Bit strings: a backslash is itself whatever
                    // standard_conforming_strings says.
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

    /// A doubled closing quote is the quote itself (`'it''s'`), and so is
    /// one after a backslash in an `E'…'` string. A PostgreSQL string goes
    /// on at a quote after a newline (`continuingQuote()`). `token`: where
    /// the token starts (the quote, or the `E` or `B` before it).
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

    /// scan.l's `quotecontinue`: blanks and `--` comments holding a newline,
    /// then a quote, continue the string (`E'a'\n'\' '` is one `E'…'`
    /// string); a `/* */` between ends it. SQLite has no such rule.
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
                while next < scalars.count, scalars[next] != "\n", scalars[next] != "\r" { next += 1 }
            case "'":
                return newline ? next : nil
            default:
                return nil
            }
        }
        return nil
    }

    /// Nested too in PostgreSQL.
    private mutating func skipBlockComment() {
        var open = 0
        while index < scalars.count {
            if scalars[index] == "/", at(1) == "*", lexicon == .postgres || open == 0 {
                // SQLite's comments do not nest: the `*` of an inner `/*`
                // may start the `*/` that ends it (`/* /*/` is one comment).
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

    /// `$$`: "", `$fn$`: "fn"; nil for a `$1` parameter or a `$` in a name.
    private func dollarQuoteTag() -> String? {
        var end = index + 1
        while end < scalars.count, scalars[end] != "$" {
            guard isWordStart(scalars[end]) || (end > index + 1 && isDigit(scalars[end])) else { return nil }
            end += 1
        }
        guard end < scalars.count else { return nil }
        return String(String.UnicodeScalarView(scalars[(index + 1)..<end]))
    }

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

    /// The digits of a number and nothing after them: a letter that is no
    /// exponent starts a name to the server (`1x$$` is `1` and the name
    /// `x$$` to PostgreSQL 14), so it ends the number here too; swallowed,
    /// `x` would leave `$$` to open a string. PostgreSQL 16's `0x1F` and
    /// `1_000` are a `0` and a word: the same characters, one token.
    private mutating func skipNumber() {
        if lexicon == .sqlite, scalars[index] == "0", at(1) == "x" || at(1) == "X", at(2).map(isHexDigit) == true {
            index += 2
            while index < scalars.count, isHexDigit(scalars[index]) { index += 1 }
            return
        }
        skipDigits()
        if at(0) == ".", at(1) != "." {
            index += 1
            skipDigits()
        }
            // `1e` and `1e+` are `1` and the name `e` to both databases.
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

    /// Both databases take those in unquoted names.
    private func isWordStart(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || scalar == "_" || scalar.value > 127
    }

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
