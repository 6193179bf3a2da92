import GRDB

/// A table or a view of a database file, as the viewer shows it: its
/// columns, how a row is identified, and which columns an index sorts.
///
/// For example:
///
/// ```swift
/// let tables = try database.read { db in try TableSchema.all(db) }
/// for table in tables {
///     print(table.name, table.kind, table.columns.map(\.name))
/// }
/// ```
public struct TableSchema: Equatable, Sendable {
    /// What kind of table it is.
    public enum Kind: String, Equatable, Sendable {
        /// A table with a rowid.
        case table
        /// A `WITHOUT ROWID` table: rows are identified by their primary key.
        case withoutRowidTable
        /// A view: no row identity.
        case view
        /// A virtual table (FTS, R-Tree, …).
        case virtual
        /// A table that stores the content of a virtual table.
        case shadow
        /// A PostgreSQL materialized view: a query's rows, stored until
        /// refreshed.
        case materializedView
        /// A PostgreSQL foreign table, whose rows another server holds.
        case foreignTable

        /// One plain word for the kind, as lists of tables show it (two
        /// for PostgreSQL's own kinds, as psql says them).
        ///
        /// For example:
        ///
        /// ```swift
        /// TableSchema.Kind.withoutRowidTable.word // "without-rowid"
        /// ```
        public var word: String {
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

    /// The name of the table, as the schema spells it.
    public var name: String
    /// What kind of table it is.
    public var kind: Kind
    /// The columns that `SELECT *` returns, in order (hidden columns of
    /// virtual tables are left out; generated columns are kept).
    public var columns: [SourceColumn]
    /// How a row is identified.
    public var identity: RowIdentity
    /// The columns of the primary key of a `WITHOUT ROWID` table that its
    /// declaration sorts in descending order (`PRIMARY KEY(b DESC, a)`):
    /// the table's own order, which the natural order of the viewer follows.
    public var descendingKeyColumns: Set<String>
    /// The schema that holds the table, for a database with schemas
    /// (PostgreSQL's `public`, `sales`): statements then name it
    /// `"schema"."table"`. Nil for SQLite, whose names are unqualified.
    public var schema: String?

    /// Creates a table description; `all(_:)` and `named(_:in:)` read them.
    public init(
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

    /// The names of the columns.
    public var columnNames: [String] { columns.map(\.name) }
}

/// A column of a table, view or query.
public struct SourceColumn: Equatable, Sendable {
    /// The name of the column.
    public var name: String
    /// The declared type ("INTEGER", "varchar(20)"…), empty when none.
    /// SQLite stores any value whatever this says.
    public var declaredType: String
    /// True when a complete index starts with this column, so that
    /// sorting on it costs an index search, not a scan.
    public var isIndexed: Bool
    /// True when the column can not hold NULL: declared `NOT NULL`, an
    /// `INTEGER PRIMARY KEY`, or the primary key of a `WITHOUT ROWID` table.
    public var isNotNull: Bool
    /// True for the `INTEGER PRIMARY KEY` of a rowid table: the rowid
    /// under the column's own name, which identifies the row.
    public var isRowidAlias: Bool

    /// Creates a column.
    ///
    /// For example:
    ///
    /// ```swift
    /// let column = SourceColumn(name: "score", declaredType: "INTEGER", isIndexed: true)
    /// ```
    public init(name: String, declaredType: String, isIndexed: Bool, isNotNull: Bool = false, isRowidAlias: Bool = false) {
        self.name = name
        self.declaredType = declaredType
        self.isIndexed = isIndexed
        self.isNotNull = isNotNull
        self.isRowidAlias = isRowidAlias
    }
}

/// How the rows of a source are told apart.
public enum RowIdentity: Equatable, Sendable {
    /// The rowid, under this name (`rowid`, `_rowid_` or `oid`: the first
    /// one that no column takes).
    case rowid(String)
    /// The primary key columns of a `WITHOUT ROWID` table, in key order.
    case primaryKey([String])
    /// No identity (views, queries): rows are paged by all their columns,
    /// and equal rows by their position among equals.
    case none
}
