import Foundation

/// The order that a query's own top-level `ORDER BY` gives its rows, as
/// far as the window engine can keep it.
///
/// A query is paged as a common table expression, whose `ORDER BY` the
/// statements around it do not keep: the window engine orders the rows
/// by a keyset of its own. When the terms of the query's `ORDER BY` name
/// columns of its result, by name or by position (`ORDER BY score DESC,
/// 1`), with `ASC`/`DESC` and `NULLS FIRST`/`NULLS LAST`, they are the
/// first columns of that keyset (`RowOrdering`), and the result's other
/// columns break ties: the rows show in the query's order, at the cost of
/// any other order. A term that is an expression (`lower(name)`, `a + b`,
/// `name COLLATE NOCASE`, `t.name`) is not kept, nor any after it: the
/// view says so (`unkeptNotice`).
///
/// The clause is found by a tokenizer (`SQLToken`) that knows the
/// dialect's quotes and comments and the depth of parentheses, so that the
/// `ORDER BY` of a subquery, of a window (`OVER (ORDER BY …)`) or of an
/// aggregate is never taken for the query's. What follows the clause
/// (`LIMIT`, `OFFSET`, `FETCH`, `FOR`) ends it; the query keeps it whole,
/// so a `LIMIT` still picks its rows in the query's own order, and the
/// view then orders those rows. Parentheses around the whole statement
/// (`(SELECT … ORDER BY score DESC)`) are seen through.
///
/// For example:
///
/// ```swift
/// let order = QueryOrder(
///     query: "SELECT name, score FROM player ORDER BY score DESC LIMIT 10",
///     columnNames: ["name", "score"], dialect: .sqlite)
/// order?.terms // [Term(column: 1, descending: true, nullsFirst: nil)]
/// ```
public struct QueryOrder: Equatable, Sendable {
    /// One kept term: a column of the query's result, and its direction.
    public struct Term: Equatable, Sendable {
        /// The index of the column in the query's result.
        public var column: Int
        /// True for `DESC`.
        public var descending: Bool
        /// True for `NULLS FIRST`, false for `NULLS LAST`, nil where the
        /// database puts NULLs by default in that direction (also when the
        /// query says so in words).
        public var nullsFirst: Bool?

        /// Creates a term.
        ///
        /// For example:
        ///
        /// ```swift
        /// let byScore = QueryOrder.Term(column: 1, descending: true)
        /// ```
        public init(column: Int, descending: Bool, nullsFirst: Bool? = nil) {
            self.column = column
            self.descending = descending
            self.nullsFirst = nullsFirst
        }
    }

    /// A term of the query's `ORDER BY` that the view does not keep.
    public struct UnkeptTerm: Equatable, Sendable {
        /// The term as written (`lower(name) DESC`).
        public var text: String
        /// Why: "an expression", "no result column has this name"…
        public var reason: String
    }

    /// The terms kept, in order: all of them, or those before the first
    /// that is not kept.
    public var terms: [Term]
    /// The first term not kept, nil when all are.
    public var unkept: UnkeptTerm?

    /// The order of the query's top-level `ORDER BY`, or nil when it has
    /// none.
    ///
    /// For example:
    ///
    /// ```swift
    /// QueryOrder(query: "SELECT a FROM t", columnNames: ["a"], dialect: .sqlite) // nil
    /// ```
    ///
    /// - parameter sql: The query's text.
    /// - parameter columnNames: The names of the columns of its result, as
    ///   the database described them.
    /// - parameter dialect: The dialect that reads it (its quotes and
    ///   comments, and where it sorts NULLs by default).
    public init?(query sql: String, columnNames: [String], dialect: SQLDialect) {
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

    /// One line for the status line when a term is not kept: which term,
    /// why, and the order shown instead; nil when every term is kept.
    ///
    /// For example:
    ///
    /// ```swift
    /// order.unkeptNotice
    /// // the query's ORDER BY lower(name) is not kept (an expression): shown by all columns ↑
    /// ```
    public var unkeptNotice: String? {
        guard let unkept else { return nil }
        let text = unkept.text.split(whereSeparator: \.isNewline).joined(separator: " ")
        if terms.isEmpty {
            return "the query's ORDER BY \(text) is not kept (\(unkept.reason)): shown by all columns ↑"
        }
        return "the query's ORDER BY is kept up to \(text), which is not (\(unkept.reason)): "
            + "ties shown by all columns ↑"
    }

    // MARK: - Parsing

    /// The words that end an `ORDER BY` clause.
    private static let clauseEnds: Set<String> = ["LIMIT", "OFFSET", "FETCH", "FOR"]

    /// The tokens inside the parentheses that enclose the whole statement
    /// (`(SELECT … ORDER BY score DESC);`, which PostgreSQL runs as the
    /// statement without them), one level up, as many times as they do;
    /// `tokens` as they are otherwise. Only then: in `(SELECT …) UNION
    /// (SELECT …)` or `(SELECT … ORDER BY a) LIMIT 3` the parentheses
    /// enclose a part, whose `ORDER BY` is not the statement's.
    static func unparenthesized(_ tokens: [SQLToken]) -> [SQLToken] {
        var inner = tokens[...]
        var level = 0
        // The last token but the statement's `;`s.
        while let end = inner.lastIndex(where: { !($0.depth == level && $0.isSymbol(";")) }),
            end > inner.startIndex, inner[inner.startIndex].isSymbol("("), inner[end].isSymbol(")"),
            // The first `(` closes at the last token: every token between
            // stands inside it.
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

    /// The tokens of each term of the top-level `ORDER BY`, or nil when
    /// there is none: the first `ORDER BY` outside any parentheses, up to
    /// a `LIMIT`, `OFFSET`, `FETCH` or `FOR` outside them too, or the end.
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

/// A term of an `ORDER BY` as written: a name, a position, or anything
/// else, then its direction and where its NULLs go.
private struct ParsedTerm {
    enum Key {
        case name(String, quoted: Bool)
        case position(Int)
        case expression(reason: String)
    }

    struct Problem: Error {
        var reason: String
    }

    /// Words that stand for a value, not a column: `ORDER BY NULL` names
    /// no column.
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

    /// The kept term: the one result column the key names.
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
        // Where the database puts NULLs in this direction when the query
        // does not say: written that way, it is the default, and the
        // keyset is written as for `--sort`.
        let defaultNullsFirst = descending != dialect.sortsNullsFirst
        let nulls = nullsFirst.flatMap { $0 == defaultNullsFirst ? nil : $0 }
        return .success(QueryOrder.Term(column: column, descending: descending, nullsFirst: nulls))
    }

    /// Whether the name, as written in the query, names the column
    /// `column`: SQLite compares names ignoring ASCII case, quoted or not;
    /// PostgreSQL folds an unquoted name to lower case, and compares a
    /// quoted one exactly.
    private static func name(_ name: String, quoted: Bool, names column: String, _ dialect: SQLDialect) -> Bool {
        switch dialect.lexicon {
        case .sqlite: return name.lowercasedASCII == column.lowercasedASCII
        case .postgres: return (quoted ? name : name.lowercasedASCII) == column
        }
    }
}
