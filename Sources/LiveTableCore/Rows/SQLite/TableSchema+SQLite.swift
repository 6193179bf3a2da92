import GRDB

// MARK: - Reading the schema

extension TableSchema {
    /// The tables and views of the main database, in the picker's order
    /// (`listsBefore(_:_:)`), without
    /// SQLite's schema table. A table that SQLite can not describe (a
    /// virtual table of a module this SQLite lacks) is left out.
    package static func all(_ db: Database) throws -> [TableSchema] {
        try listedTables(db).compactMap { entry in
            try? describe(db, entry)
        }
    }

    /// The names and kinds of all tables and views, in the picker's order, those
    /// SQLite can not describe included: one query, whatever their number,
    /// for the picker, which lists them at once (and counts them after).
    package static func list(_ db: Database) throws -> [(name: String, kind: Kind)] {
        try listedTables(db).map { ($0.name, $0.kind) }
    }

    /// The names of all tables and views, those SQLite can not describe
    /// included: for error messages.
    package static func allNames(_ db: Database) throws -> [String] {
        try listedTables(db).map(\.name)
    }

    /// The table or view named `name` (case-insensitively, as in SQL).
    ///
    /// - throws: `SourceError.noSuchTable` listing the tables, or
    ///   `SourceError.unreadableTable`.
    package static func named(_ name: String, in db: Database) throws -> TableSchema {
        let entries = try listedTables(db)
        guard let entry = entries.first(where: { $0.name == name })
            ?? entries.first(where: { $0.name.lowercased() == name.lowercased() })
        else {
            throw SourceError.noSuchTable(name: name, tables: entries.map(\.name))
        }
        do {
            return try describe(db, entry)
        } catch {
            var reason = (error as? DatabaseError)?.message ?? "\(error)"
            if reason.hasPrefix("unsafe use of") {
                // trusted_schema = OFF (SQLiteDataSource.guardConnection): a
                // view may not read a virtual table that SQLite does not
                // call innocuous (FTS), nor call a function with effects.
                reason += " in a view of the file, which livetable view does not trust: "
                    + "give the view's SELECT with --query"
            }
            throw SourceError.unreadableTable(name: entry.name, reason: reason)
        }
    }

    /// The table or view `name` of kind `kind`, as `all(_:)` listed it,
    /// described without listing the others: the picker counts its entries
    /// one by one, and a file may hold thousands.
    package static func named(_ name: String, kind: Kind, in db: Database) throws -> TableSchema {
        let type: String
        switch kind {
        case .table, .withoutRowidTable: type = "table"
        case .view, .materializedView, .foreignTable: type = "view"
        case .virtual: type = "virtual"
        case .shadow: type = "shadow"
        }
        return try describe(db, Entry(name: name, type: type, withoutRowid: kind == .withoutRowidTable))
    }

    /// One row of `PRAGMA table_list`.
    private struct Entry {
        var name: String
        var type: String
        var withoutRowid: Bool

        var kind: Kind {
            switch type {
            case "view": return .view
            case "virtual": return .virtual
            case "shadow": return .shadow
            default: return withoutRowid ? .withoutRowidTable : .table
            }
        }
    }

    /// `PRAGMA table_list` (SQLite 3.37+) tells views, virtual and shadow
    /// tables, and WITHOUT ROWID tables apart, which `sqlite_schema` only
    /// says in its SQL text.
    private static func listedTables(_ db: Database) throws -> [Entry] {
        let entries = try Row.fetchAll(db, sql: "SELECT name, type, wr FROM pragma_table_list WHERE schema = 'main'")
            .compactMap { row -> Entry? in
                guard let name = row["name"] as String?, let type = row["type"] as String? else { return nil }
                return Entry(name: name, type: type, withoutRowid: (row["wr"] as Int?) == 1)
            }
            .filter { $0.name != "sqlite_schema" && $0.name != "sqlite_master" }
        return listed(entries, name: \.name)
    }

    /// The order of the picker's names, for every database: as a person
    /// looks for a name, ignoring case and the double quotes of a quoted
    /// name (`album`, `"Album.2024"`, `Artist`, `track`), then by the exact
    /// name, so that the order is total. Byte order put every uppercase
    /// name before the first lowercase one.
    package static func listsBefore(_ name: String, _ other: String) -> Bool {
        precedes((name, listingKey(name)), (other, listingKey(other)))
    }

    /// `items` in the order of ``listsBefore(_:_:)``, each name's key made
    /// once rather than at each comparison: thousands of tables sort
    /// without two new strings per comparison.
    package static func listed<Item>(_ items: [Item], name: (Item) -> String) -> [Item] {
        items.map { item in (item: item, listed: (name: name(item), key: listingKey(name(item)))) }
            .sorted { precedes($0.listed, $1.listed) }
            .map(\.item)
    }

    /// The comparison of ``listsBefore(_:_:)``, on names and their keys.
    private static func precedes(_ name: (name: String, key: String), _ other: (name: String, key: String)) -> Bool {
        name.key != other.key ? name.key < other.key : name.name < other.name
    }

    private static func listingKey(_ name: String) -> String {
        String(name.lowercased().filter { $0 != "\"" })
    }

    private static func describe(_ db: Database, _ entry: Entry) throws -> TableSchema {
        let kind = entry.kind
        let indexed = kind == .view || kind == .virtual ? [] : try indexedColumns(db, table: entry.name)
        // The index of the primary key, when it has one: always for a
        // WITHOUT ROWID table; for a rowid table, only when the key is not
        // the rowid.
        let primaryKeyIndex = kind == .view || kind == .virtual ? nil : try String.fetchOne(
            db, sql: "SELECT name FROM pragma_index_list(?) WHERE origin = 'pk'", arguments: [entry.name])
        // hidden: 0 normal, 1 hidden column of a virtual table (not in
        // SELECT *), 2 and 3 generated columns (in SELECT *).
        let rows = try Row.fetchAll(
            db, sql: "SELECT name, type, \"notnull\", pk, hidden FROM pragma_table_xinfo(?)",
            arguments: [entry.name])
        let visible = rows.filter { (($0["hidden"] as Int?) ?? 0) != 1 }
        let primaryKeyCount = rows.filter { (($0["pk"] as Int?) ?? 0) > 0 }.count
        let columns = visible.map { row in
            let name: String = row["name"] ?? ""
            let type: String = row["type"] ?? ""
            let isPrimaryKey = (row["pk"] as Int? ?? 0) > 0
            // The primary key of a WITHOUT ROWID table is NOT NULL, and an
            // INTEGER PRIMARY KEY is the rowid; but for a quirk of SQLite,
            // `id INTEGER PRIMARY KEY DESC` is not: an ordinary column,
            // which may hold NULL, with an index of its own (the only sign
            // of it in the schema).
            let isRowidAlias = kind == .table && isPrimaryKey && primaryKeyCount == 1
                && type.uppercased() == "INTEGER" && primaryKeyIndex == nil
            return SourceColumn(
                name: name,
                declaredType: type,
                isIndexed: indexed.contains(name.lowercased()),
                isNotNull: (row["notnull"] as Int?) == 1 || isRowidAlias
                    || (kind == .withoutRowidTable && isPrimaryKey),
                isRowidAlias: isRowidAlias)
        }
        let identity: RowIdentity
        switch kind {
        case .view, .materializedView, .foreignTable:
            identity = .none
        case .withoutRowidTable:
            let primaryKey = rows
                .compactMap { row -> (Int, String)? in
                    guard let pk = row["pk"] as Int?, pk > 0, let name = row["name"] as String? else { return nil }
                    return (pk, name)
                }
                .sorted { $0.0 < $1.0 }
                .map(\.1)
            identity = .primaryKey(primaryKey)
        case .table, .virtual, .shadow:
            identity = try rowidIdentity(db, table: entry.name, columns: rows.compactMap { $0["name"] })
        }
        var descendingKeyColumns: Set<String> = []
        if kind == .withoutRowidTable, let primaryKeyIndex {
            let descending = try Row.fetchAll(
                db, sql: "SELECT name FROM pragma_index_xinfo(?) WHERE key = 1 AND \"desc\" = 1",
                arguments: [primaryKeyIndex])
            descendingKeyColumns = Set(descending.compactMap { $0["name"] as String? })
        }
        var table = TableSchema(
            name: entry.name, kind: kind, columns: columns, identity: identity,
            descendingKeyColumns: descendingKeyColumns)
        if kind == .table || kind == .withoutRowidTable {
            table.foreignKeys = try foreignKeys(db, table: entry.name, columns: table.columnNames)
        }
        // A virtual table of a missing module fails here, not above.
        _ = try db.makeStatement(sql: "SELECT * FROM \(table.name.quotedSQLIdentifier) LIMIT 0")
        return table
    }

    /// The rowid, under the first of its three names that no column takes.
    /// A table whose columns take all three has no reachable rowid.
    private static func rowidIdentity(_ db: Database, table: String, columns: [String]) throws -> RowIdentity {
        let taken = Set(columns.map { $0.lowercased() })
        guard let name = ["rowid", "_rowid_", "oid"].first(where: { !taken.contains($0) }) else {
            return .none
        }
        // Some virtual tables have no rowid at all.
        do {
            _ = try db.makeStatement(sql: "SELECT \(name) FROM \(table.quotedSQLIdentifier) LIMIT 0")
        } catch {
            return .none
        }
        return .rowid(name)
    }

    /// The lowercased names of the columns that lead a complete index
    /// (not a partial one) of `table`: a sort on them can page by keyset.
    private static func indexedColumns(_ db: Database, table: String) throws -> Set<String> {
        var names: Set<String> = []
        let indexes = try Row.fetchAll(
            db, sql: "SELECT name, partial, origin FROM pragma_index_list(?)", arguments: [table])
        for index in indexes where (index["partial"] as Int?) != 1 {
            guard let indexName = index["name"] as String? else { continue }
            let leading = try String.fetchOne(
                db, sql: "SELECT name FROM pragma_index_info(?) WHERE seqno = 0", arguments: [indexName])
            if let leading {
                names.insert(leading.lowercased())
            }
        }
        // An INTEGER PRIMARY KEY is the rowid: its own index. A primary key
        // with an index of its own (`INTEGER PRIMARY KEY DESC`) is not.
        let pk = try Row.fetchAll(db, sql: "SELECT name, type, pk FROM pragma_table_info(?)", arguments: [table])
            .filter { (($0["pk"] as Int?) ?? 0) > 0 }
        if pk.count == 1, let name = pk[0]["name"] as String?, (pk[0]["type"] as String?)?.uppercased() == "INTEGER",
            !indexes.contains(where: { ($0["origin"] as String?) == "pk" })
        {
            names.insert(name.lowercased())
        }
        return names
    }
}
