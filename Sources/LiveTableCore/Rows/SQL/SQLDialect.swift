import Foundation
import GRDB

/// How the window engine spells its SQL for one database. Only the engine's
/// own parts are written by the dialect: a user's filter or query goes in as
/// given, and its `?` or `$1` is never taken for an engine placeholder.
package struct SQLDialect: Equatable, Sendable {
    package enum Placeholders: Equatable, Sendable {
        case questionMarks
        case dollarNumbers
    }

    /// "This column's text contains the searched text, ignoring ASCII case":
    /// `beforeColumn`, the column, `beforeText`, the placeholder, `afterText`.
    package struct Containment: Equatable, Sendable {
        package var beforeColumn: String
        package var beforeText: String
        package var afterText: String

        package init(beforeColumn: String, beforeText: String, afterText: String) {
            self.beforeColumn = beforeColumn
            self.beforeText = beforeText
            self.afterText = afterText
        }
    }

    /// "This key column is this value", NULL included: `x = NULL` matches nothing.
    package enum KeyEquality: Equatable, Sendable {
        /// `x IS ?`: SQLite plans it as an index search, as it does `x = ?`.
        case nullMatchingOperator(String)
        /// `x = $n`, or `x IS NULL`: PostgreSQL's `x IS NOT DISTINCT FROM $n`
        /// is no index condition, and the planner filters and sorts every row.
        case equalsOrIsNull
    }

    package var placeholders: Placeholders
    package var keyEquality: KeyEquality
    /// SQLite's NULL first, PostgreSQL's last: the keyset ranges follow it,
    /// so that they read rows in the order of `ORDER BY` and of the indexes.
    package var sortsNullsFirst: Bool
    /// SQLite only: `RowOrdering.indexName` is otherwise left to the planner.
    package var supportsIndexedBy: Bool
    package var containment: Containment
    package var trueCondition: String
    /// PostgreSQL (before 16) requires an alias after a subquery in `FROM`.
    package var subqueryAlias: String
    /// See `RowSource.changeToken`; nil for SQLite (its statements stay as
    /// they are).
    package var changeToken: String?
    package var lexicon: SQLLexicon = .sqlite

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

    package static let sqlite = SQLDialect(
        placeholders: .questionMarks,
        keyEquality: .nullMatchingOperator("IS"),
        sortsNullsFirst: true,
        supportsIndexedBy: true,
        containment: Containment(beforeColumn: "instr(lower(", beforeText: "), lower(", afterText: ")) > 0"),
        trueCondition: "1",
        subqueryAlias: "")

    /// Both databases quote with `"`.
    package func quoted(_ identifier: String) -> String {
        identifier.quotedSQLIdentifier
    }

    package func quotedTable(_ name: String, schema: String?) -> String {
        (schema.map { quoted($0) + "." } ?? "") + quoted(name)
    }

    /// `value` written in SQL, for text the user sees and edits (a filter):
    /// a string quoted, a number as it reads back, a blob in hex. Only
    /// SQLite's values are blobs or reals; PostgreSQL's are its text.
    package func literal(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: return "NULL"
        case let .int64(integer): return String(integer)
        case let .double(double) where double.isFinite: return "\(double)"
        case let .double(double): return double < 0 ? "-9e999" : "9e999"
        case let .string(text) where lexicon == .postgres && text.contains("\\"):
            // Read alike whatever `standard_conforming_strings` says.
            return "E'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "''") + "'"
        case let .string(text): return "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
        case let .blob(data): return "X'" + data.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }

    /// From 1.
    package func placeholder(_ number: Int) -> String {
        switch placeholders {
        case .questionMarks: return "?"
        case .dollarNumbers: return "$\(number)"
        }
    }

    /// As `keyEquality` writes it, joined by `AND`, with its arguments.
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

    package func countSQL(of select: String) -> String {
        "SELECT COUNT(*) FROM (\(select))" + subqueryAlias
    }
}

/// SQL of the engine's own, its placeholders kept apart from its text and
/// written by the dialect when `RowSource.selectSQL` knows their numbers. No
/// `?` is ever searched for in text, so that a quoted name holding one
/// (`"why?"`) or a user's filter is never rewritten.
struct SQLFragment: Equatable, Sendable {
    enum Part: Equatable, Sendable {
        case text(String)
        case placeholder
    }

    var parts: [Part]

    init(_ text: String) {
        parts = [.text(text)]
    }

    init(parts: [Part]) {
        self.parts = parts
    }

    static let placeholder = SQLFragment(parts: [.placeholder])

    var placeholderCount: Int {
        parts.filter { $0 == .placeholder }.count
    }

    static func + (lhs: SQLFragment, rhs: SQLFragment) -> SQLFragment {
        SQLFragment(parts: lhs.parts + rhs.parts)
    }

    static func joined(_ fragments: [SQLFragment], separator: String) -> SQLFragment {
        var parts: [Part] = []
        for (index, fragment) in fragments.enumerated() {
            if index > 0 { parts.append(.text(separator)) }
            parts += fragment.parts
        }
        return SQLFragment(parts: parts)
    }

    /// `number` is left at the number of the next placeholder.
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
