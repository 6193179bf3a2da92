import Foundation

/// A query's own top-level `ORDER BY`, as far as the window engine keeps
/// it. The query is paged as a common table expression, whose `ORDER BY`
/// the statements around it lose; so terms that name result columns (by
/// name or position, with `ASC`/`DESC` and `NULLS FIRST`/`LAST`) become the
/// first key columns (`RowOrdering`), the other columns breaking ties. An
/// expression term (`lower(name)`, `t.name`, `COLLATE`) is not kept, nor any
/// after it, and the view says so (`unkeptNotice`).
///
/// The tokenizer's depth of parentheses keeps the `ORDER BY` of a subquery,
/// a window (`OVER (ORDER BY …)`) or an aggregate from being taken for the
/// query's. `LIMIT`, `OFFSET`, `FETCH` or `FOR` end the clause; the query
/// keeps them, so a `LIMIT` still picks rows in the query's own order.
package struct QueryOrder: Equatable, Sendable {
    package struct Term: Equatable, Sendable {
        package var column: Int
        package var descending: Bool
        /// Nil where the database puts NULLs by default in that direction
        /// (also when the query says so in words).
        package var nullsFirst: Bool?

        package init(column: Int, descending: Bool, nullsFirst: Bool? = nil) {
            self.column = column
            self.descending = descending
            self.nullsFirst = nullsFirst
        }
    }

    package struct UnkeptTerm: Equatable, Sendable {
        package var text: String
        package var reason: String
    }

    /// All terms, or those before the first not kept.
    package var terms: [Term]
    package var unkept: UnkeptTerm?

    /// Nil when the query has no top-level `ORDER BY`.
    package init?(query sql: String, columnNames: [String], dialect: SQLDialect) {
        let tokens = Self.unparenthesized(SQLToken.tokens(of: sql, dialect.lexicon))
        guard let clause = Self.orderByTerms(in: tokens) else { return nil }
        let scalars = Array(sql.unicodeScalars)
        terms = []
        unkept = nil
        for termTokens in clause {
            let term = ParsedTerm(termTokens)
            switch term.resolved(in: columnNames, dialect: dialect) {
            case let .success(kept):
                // A column named again (`ORDER BY name, 1`) orders nothing more.
                if !terms.contains(where: { $0.column == kept.column }) { terms.append(kept) }
            case let .failure(problem):
                let range = (termTokens.first?.range.lowerBound ?? 0)..<(termTokens.last?.range.upperBound ?? 0)
                unkept = UnkeptTerm(
                    text: String(String.UnicodeScalarView(scalars[range])), reason: problem.reason)
                return
            }
        }
    }

    /// For the status line; nil when every term is kept.
    package var unkeptNotice: String? {
        guard let unkept else { return nil }
        let text = unkept.text.split(whereSeparator: \.isNewline).joined(separator: " ")
        if terms.isEmpty {
            return "the query's ORDER BY \(text) is not kept (\(unkept.reason)): shown by all columns ↑"
        }
        return "the query's ORDER BY is kept up to \(text), which is not (\(unkept.reason)): "
            + "ties shown by all columns ↑"
    }

    // MARK: - Parsing

    private static let clauseEnds: Set<String> = ["LIMIT", "OFFSET", "FETCH", "FOR"]

    /// Sees through parentheses around the whole statement
    /// (`(SELECT … ORDER BY a);`, which PostgreSQL runs without them), and
    /// only then: in `(SELECT …) UNION (SELECT …)` or `(SELECT … ORDER BY a)
    /// LIMIT 3` they enclose a part, whose `ORDER BY` is not the statement's.
    static func unparenthesized(_ tokens: [SQLToken]) -> [SQLToken] {
        var inner = tokens[...]
        var level = 0
        while let end = inner.lastIndex(where: { !($0.depth == level && $0.isSymbol(";")) }),
            end > inner.startIndex, inner[inner.startIndex].isSymbol("("), inner[end].isSymbol(")"),
            // The first `(` closes at the last token.
            inner[(inner.startIndex + 1)..<end].allSatisfy({ $0.depth > level })
        {
            inner = inner[(inner.startIndex + 1)..<end]
            level += 1
        }
        guard level > 0 else { return tokens }
        return inner.map { token in
            var token = token
            token.depth -= level
            return token
        }
    }

    /// Nil when there is none outside any parentheses.
    static func orderByTerms(in tokens: [SQLToken]) -> [[SQLToken]]? {
        var index = 0
        while index + 1 < tokens.count {
            let token = tokens[index]
            if token.depth == 0, token.isSymbol(";") { return nil }
            if token.depth == 0, token.isKeyword("ORDER"), tokens[index + 1].isKeyword("BY") { break }
            index += 1
        }
        guard index + 1 < tokens.count else { return nil }
        var terms: [[SQLToken]] = [[]]
        for token in tokens[(index + 2)...] {
            if token.depth == 0 {
                if token.isSymbol(";") || (token.kind == .word && clauseEnds.contains(token.text.uppercased())) {
                    break
                }
                if token.isSymbol(",") {
                    terms.append([])
                    continue
                }
            }
            terms[terms.count - 1].append(token)
        }
        return terms
    }
}

private struct ParsedTerm {
    enum Key {
        case name(String, quoted: Bool)
        case position(Int)
        case expression(reason: String)
    }

    struct Problem: Error {
        var reason: String
    }

    /// `ORDER BY NULL` names no column.
    private static let valueWords: Set<String> = [
        "NULL", "TRUE", "FALSE", "CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP",
        "LOCALTIME", "LOCALTIMESTAMP", "CURRENT_USER", "SESSION_USER", "USER",
    ]

    var key: Key
    var descending = false
    var nullsFirst: Bool?

    init(_ tokens: [SQLToken]) {
        guard let first = tokens.first else {
            key = .expression(reason: "empty")
            return
        }
        switch first.kind {
        case .word where !Self.valueWords.contains(first.text.uppercased()):
            key = .name(first.text, quoted: false)
        case .quotedName:
            key = .name(first.text, quoted: true)
        case .number where first.text.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }):
            key = Int(first.text).map(Key.position) ?? .expression(reason: "no result column at this position")
        default:
            key = .expression(reason: "an expression")
        }
        var rest = tokens.dropFirst()
        if let word = rest.first, word.isKeyword("ASC") || word.isKeyword("DESC") {
            descending = word.isKeyword("DESC")
            rest = rest.dropFirst()
        }
        if rest.count >= 2, rest[rest.startIndex].isKeyword("NULLS") {
            let placement = rest[rest.startIndex + 1]
            if placement.isKeyword("FIRST") || placement.isKeyword("LAST") {
                nullsFirst = placement.isKeyword("FIRST")
                rest = rest.dropFirst(2)
            }
        }
        if let next = rest.first, case .name = key {
            if next.isSymbol(".") {
                key = .expression(reason: "a qualified name")
            } else if tokens.contains(where: { $0.isKeyword("COLLATE") }) {
                key = .expression(reason: "a collation of its own")
            } else if next.isKeyword("USING") {
                key = .expression(reason: "an operator of its own")
            } else {
                key = .expression(reason: "an expression")
            }
        } else if !rest.isEmpty, case .position = key {
            key = .expression(reason: "an expression")
        }
    }

    func resolved(in columnNames: [String], dialect: SQLDialect) -> Result<QueryOrder.Term, Problem> {
        let column: Int
        switch key {
        case let .expression(reason):
            return .failure(Problem(reason: reason))
        case let .position(position):
            guard position >= 1, position <= columnNames.count else {
                return .failure(Problem(reason: "no result column at this position"))
            }
            column = position - 1
        case let .name(name, quoted):
            let matches = columnNames.indices.filter { Self.name(name, quoted: quoted, names: columnNames[$0], dialect) }
            guard let only = matches.first else {
                return .failure(Problem(reason: "no result column has this name"))
            }
            guard matches.count == 1 else {
                return .failure(Problem(reason: "\(matches.count) result columns have this name"))
            }
            column = only
        }
        // Written as the database's default, it is the default, and the
        // keyset is written as for `--sort`.
        let defaultNullsFirst = descending != dialect.sortsNullsFirst
        let nulls = nullsFirst.flatMap { $0 == defaultNullsFirst ? nil : $0 }
        return .success(QueryOrder.Term(column: column, descending: descending, nullsFirst: nulls))
    }

    /// SQLite compares names ignoring ASCII case, quoted or not; PostgreSQL
    /// folds an unquoted name to lower case, and compares a quoted one exactly.
    private static func name(_ name: String, quoted: Bool, names column: String, _ dialect: SQLDialect) -> Bool {
        switch dialect.lexicon {
        case .sqlite: return name.lowercasedASCII == column.lowercasedASCII
        case .postgres: return (quoted ? name : name.lowercasedASCII) == column
        }
    }
}
