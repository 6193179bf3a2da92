import GRDB

/// A table or view as the viewer shows it: its columns, how a row is
/// identified, and which columns an index sorts.
package struct TableSchema: Equatable, Sendable {
    package enum Kind: String, Equatable, Sendable {
        case table
        case withoutRowidTable
        case view
        case virtual
        case shadow
        case materializedView
        case foreignTable

        /// As lists of tables show it (PostgreSQL's kinds as psql says them).
        package var word: String {
            switch self {
            case .table: return "table"
            case .withoutRowidTable: return "without-rowid"
            case .view: return "view"
            case .virtual: return "virtual"
            case .shadow: return "shadow"
            case .materializedView: return "materialized view"
            case .foreignTable: return "foreign table"
            }
        }
    }

    package var name: String
    package var kind: Kind
    /// Hidden columns of virtual tables left out, generated columns kept.
    package var columns: [SourceColumn]
    package var identity: RowIdentity
    /// A `WITHOUT ROWID` key's columns declared descending
    /// (`PRIMARY KEY(b DESC, a)`): the viewer's natural order follows them.
    package var descendingKeyColumns: Set<String>
    /// PostgreSQL's schema (statements name `"schema"."table"`); nil for SQLite.
    package var schema: String?
    package var foreignKeys: [ForeignKey] = []

    package init(
        name: String, kind: Kind, columns: [SourceColumn], identity: RowIdentity,
        descendingKeyColumns: Set<String> = [], schema: String? = nil)
    {
        self.name = name
        self.schema = schema
        self.kind = kind
        self.columns = columns
        self.identity = identity
        self.descendingKeyColumns = descendingKeyColumns
    }

    package var columnNames: [String] { columns.map(\.name) }
}

package struct SourceColumn: Equatable, Sendable {
    package var name: String
    /// SQLite stores any value whatever this says; empty when none.
    package var declaredType: String
    /// A complete index starts with it: sorting on it is an index search.
    package var isIndexed: Bool
    /// Declared `NOT NULL`, an `INTEGER PRIMARY KEY`, or a `WITHOUT ROWID` key.
    package var isNotNull: Bool
    /// The rowid under the column's own name.
    package var isRowidAlias: Bool
    /// A query's column renamed (`id 2`, for a second `id`): its own name,
    /// for the header and an export's.
    package var heading: String?

    package init(name: String, declaredType: String, isIndexed: Bool, isNotNull: Bool = false, isRowidAlias: Bool = false) {
        self.name = name
        self.declaredType = declaredType
        self.isIndexed = isIndexed
        self.isNotNull = isNotNull
        self.isRowidAlias = isRowidAlias
    }
}

/// How rows are told apart. A row's identity, not its values, is what a
/// selection follows and a window diff matches across commits.
package enum RowIdentity: Equatable, Sendable {
    /// The first of `rowid`, `_rowid_`, `oid` that no column takes.
    case rowid(String)
    /// In key order.
    case primaryKey([String])
    /// Views, queries: rows are paged by all their columns, and equal rows
    /// by their position among equals.
    case none
}
