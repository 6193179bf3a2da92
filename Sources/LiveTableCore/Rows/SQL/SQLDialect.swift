import GRDB

/// How the window engine spells its SQL for one database: quoting, the
/// equality that matches NULL, where NULL sorts, placeholders, index
/// hints, the search's containment test, subqueries.
///
/// A `RowSource` holds its dialect, and every statement that the engine
/// assembles (`RowWindow`, `RowOrdering`'s ranges and counts, `RowSearch`,
/// `RowIdentityLookup`) is written through it. `.sqlite` writes exactly
/// the SQL the engine always wrote; `.postgres` writes PostgreSQL's.
///
/// Only the engine's own parts are written by the dialect: the text of a
/// user's filter or query goes into a statement as given, and its `?` or
/// `$1` is never taken for a placeholder of the engine.
///
/// For example:
///
/// ```swift
/// SQLDialect.sqlite.quotedTable("item", schema: nil)       // "item"
/// SQLDialect.postgres.quotedTable("item", schema: "sales") // "sales"."item"
/// SQLDialect.postgres.placeholder(2)                      // $2
/// ```
public struct SQLDialect: Equatable, Sendable {
    /// How a statement marks the place of an argument.
    public enum Placeholders: Equatable, Sendable {
        /// `?`, bound in the order of appearance (SQLite).
        case questionMarks
        /// `$1`, `$2`…, numbered in the order of the arguments (PostgreSQL).
        case dollarNumbers
    }

    /// The spelling of "the text of this column contains the searched
    /// text, ignoring ASCII case": `beforeColumn`, the column's expression,
    /// `beforeText`, the text's placeholder, `afterText`.
    public struct Containment: Equatable, Sendable {
        /// What comes before the column's expression.
        public var beforeColumn: String
        /// What comes between the column's expression and the text's placeholder.
        public var beforeText: String
        /// What comes after the text's placeholder.
        public var afterText: String

        /// Creates a spelling.
        ///
        /// For example:
        ///
        /// ```swift
        /// // instr(lower(x), lower(?)) > 0
        /// let containment = SQLDialect.Containment(
        ///     beforeColumn: "instr(lower(", beforeText: "), lower(", afterText: ")) > 0")
        /// ```
        public init(beforeColumn: String, beforeText: String, afterText: String) {
            self.beforeColumn = beforeColumn
            self.beforeText = beforeText
            self.afterText = afterText
        }
    }

    /// How the engine writes "this key column is this value", NULL
    /// included: a key may hold NULL, and `x = NULL` matches nothing.
    public enum KeyEquality: Equatable, Sendable {
        /// `x IS ?`: one operator that takes NULL for equal to NULL, with
        /// the value as its argument whatever it is. SQLite plans `x IS ?`
        /// as an index search, as it does `x = ?`.
        case nullMatchingOperator(String)
        /// `x = $n` for a value, `x IS NULL` (no argument) for NULL.
        /// PostgreSQL's `x IS NOT DISTINCT FROM $n` is no index condition:
        /// the planner reads it as a filter of every row, and sorts them.
        case equalsOrIsNull
    }

    /// How arguments are marked.
    public var placeholders: Placeholders
    /// How a key column is matched to a key value, NULL included.
    public var keyEquality: KeyEquality
    /// True when NULL sorts before every value in ascending order
    /// (SQLite); false when after (PostgreSQL's default, `NULLS LAST`).
    /// The keyset ranges follow it, so that they read rows in the order
    /// of `ORDER BY` and of the indexes.
    public var sortsNullsFirst: Bool
    /// True when a statement may name the index it reads with
    /// `INDEXED BY` (SQLite only): `RowOrdering.indexName` is otherwise
    /// left to the planner.
    public var supportsIndexedBy: Bool
    /// The search's test (`RowSearch`).
    public var containment: Containment
    /// A condition that is always true, where a condition is required.
    public var trueCondition: String
    /// What follows a subquery in `FROM`: PostgreSQL (before 16) requires
    /// an alias, SQLite none.
    public var subqueryAlias: String
    /// The system column whose value changes whenever a table's row does,
    /// selected with each row of a table as its change token
    /// (`RowSource.changeToken`): PostgreSQL's `xmin`, the transaction
    /// that wrote the row's version. Nil for SQLite (its statements stay
    /// as they are).
    public var changeToken: String?
    /// How the text of a statement splits into tokens (`SQLToken`): its
    /// quotes and comments, for the tokenizer that finds a query's own
    /// `ORDER BY` (`QueryOrder`).
    public var lexicon: SQLLexicon = .sqlite

    /// Creates a dialect; `.sqlite` and `.postgres` are the two the
    /// viewer uses.
    ///
    /// For example:
    ///
    /// ```swift
    /// var dialect = SQLDialect.postgres
    /// dialect.sortsNullsFirst = true // a database whose NULLs sort first
    /// ```
    init(
        placeholders: Placeholders, keyEquality: KeyEquality, sortsNullsFirst: Bool,
        supportsIndexedBy: Bool, containment: Containment, trueCondition: String, subqueryAlias: String)
    {
        self.placeholders = placeholders
        self.keyEquality = keyEquality
        self.sortsNullsFirst = sortsNullsFirst
        self.supportsIndexedBy = supportsIndexedBy
        self.containment = containment
        self.trueCondition = trueCondition
        self.subqueryAlias = subqueryAlias
    }

    /// SQLite's: `?`, `x IS ?`, NULL first, `INDEXED BY`,
    /// `instr(lower(x), lower(?)) > 0`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let source = RowSource.table(schema) // .sqlite
    /// ```
    public static let sqlite = SQLDialect(
        placeholders: .questionMarks,
        keyEquality: .nullMatchingOperator("IS"),
        sortsNullsFirst: true,
        supportsIndexedBy: true,
        containment: Containment(beforeColumn: "instr(lower(", beforeText: "), lower(", afterText: ")) > 0"),
        trueCondition: "1",
        subqueryAlias: "")

    /// The name as a quoted identifier, its own double quotes doubled
    /// (both databases quote with `"`).
    ///
    /// For example:
    ///
    /// ```swift
    /// SQLDialect.sqlite.quoted("a \"b\"") // "a ""b"""
    /// ```
    public func quoted(_ identifier: String) -> String {
        identifier.quotedSQLIdentifier
    }

    /// The quoted name of a table, qualified by its schema when it has one.
    ///
    /// For example:
    ///
    /// ```swift
    /// SQLDialect.postgres.quotedTable("order", schema: "sales") // "sales"."order"
    /// ```
    public func quotedTable(_ name: String, schema: String?) -> String {
        (schema.map { quoted($0) + "." } ?? "") + quoted(name)
    }

    /// The placeholder of the `number`-th argument of a statement (from 1).
    ///
    /// For example:
    ///
    /// ```swift
    /// SQLDialect.sqlite.placeholder(3)   // ?
    /// SQLDialect.postgres.placeholder(3) // $3
    /// ```
    public func placeholder(_ number: Int) -> String {
        switch placeholders {
        case .questionMarks: return "?"
        case .dollarNumbers: return "$\(number)"
        }
    }

    /// The condition that each of `expressions` is its value of
    /// `values` (NULL included), joined by `AND`, and its arguments, as
    /// `keyEquality` writes it.
    ///
    /// For example:
    ///
    /// ```swift
    /// SQLDialect.sqlite.matching(["a", "b"], [1.databaseValue, .null])   // a IS ? AND b IS ?, [1, NULL]
    /// SQLDialect.postgres.matching(["a", "b"], [1.databaseValue, .null]) // a = $1 AND b IS NULL, [1]
    /// ```
    func matching(_ expressions: [String], _ values: [DatabaseValue]) -> (SQLFragment, [DatabaseValue]) {
        switch keyEquality {
        case let .nullMatchingOperator(spelling):
            let conditions = expressions.map { SQLFragment("\($0) \(spelling) ") + .placeholder }
            return (SQLFragment.joined(conditions, separator: " AND "), values)
        case .equalsOrIsNull:
            var conditions: [SQLFragment] = []
            var arguments: [DatabaseValue] = []
            for (expression, value) in zip(expressions, values) {
                if value.isNull {
                    conditions.append(SQLFragment("\(expression) IS NULL"))
                } else {
                    conditions.append(SQLFragment("\(expression) = ") + .placeholder)
                    arguments.append(value)
                }
            }
            return (SQLFragment.joined(conditions, separator: " AND "), arguments)
        }
    }

    /// `SELECT COUNT(*) FROM (select)`, the subquery aliased where the
    /// database requires it.
    ///
    /// For example:
    ///
    /// ```swift
    /// SQLDialect.postgres.countSQL(of: "SELECT 1 FROM t") // SELECT COUNT(*) FROM (SELECT 1 FROM t) AS "rows"
    /// ```
    public func countSQL(of select: String) -> String {
        "SELECT COUNT(*) FROM (\(select))" + subqueryAlias
    }
}

/// SQL of the engine's own, with its placeholders kept apart from its
/// text: the dialect writes them (`?`, `$3`) when `RowSource.selectSQL`
/// assembles a statement and knows their numbers. No `?` is ever searched
/// for in text, so that a quoted name holding one (`"why?"`) or a user's
/// filter is never rewritten.
///
/// For example:
///
/// ```swift
/// let condition = SQLFragment("\"score\" > ") + .placeholder
/// var number = 1
/// condition.sql(.postgres, numbering: &number) // "score" > $1
/// ```
struct SQLFragment: Equatable, Sendable {
    /// A piece of text, or the place of one argument.
    enum Part: Equatable, Sendable {
        case text(String)
        case placeholder
    }

    /// The pieces, in order.
    var parts: [Part]

    /// Text without placeholders.
    init(_ text: String) {
        parts = [.text(text)]
    }

    init(parts: [Part]) {
        self.parts = parts
    }

    /// The place of one argument.
    static let placeholder = SQLFragment(parts: [.placeholder])

    /// The number of arguments the fragment takes.
    var placeholderCount: Int {
        parts.filter { $0 == .placeholder }.count
    }

    static func + (lhs: SQLFragment, rhs: SQLFragment) -> SQLFragment {
        SQLFragment(parts: lhs.parts + rhs.parts)
    }

    /// The fragments, with `separator` between them.
    static func joined(_ fragments: [SQLFragment], separator: String) -> SQLFragment {
        var parts: [Part] = []
        for (index, fragment) in fragments.enumerated() {
            if index > 0 { parts.append(.text(separator)) }
            parts += fragment.parts
        }
        return SQLFragment(parts: parts)
    }

    /// The SQL text in `dialect`, its placeholders numbered from `number`,
    /// which is left at the number of the next one.
    func sql(_ dialect: SQLDialect, numbering number: inout Int) -> String {
        var sql = ""
        for part in parts {
            switch part {
            case let .text(text):
                sql += text
            case .placeholder:
                sql += dialect.placeholder(number)
                number += 1
            }
        }
        return sql
    }
}
