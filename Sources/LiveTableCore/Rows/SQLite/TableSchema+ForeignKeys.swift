import GRDB

// MARK: - Foreign keys

extension TableSchema {
    /// `table`'s foreign keys, in SQLite's order (`PRAGMA foreign_key_list`),
    /// named as the tables spell their names: a `REFERENCES Customers` opens
    /// `customers`. A key that names no column of the parent (`REFERENCES
    /// customers`) is its primary key; one whose parent has no such key is
    /// left out, as SQLite would refuse a write through it.
    static func foreignKeys(_ db: Database, table: String, columns: [String]) throws -> [ForeignKey] {
        let rows = try Row.fetchAll(db, sql: """
            SELECT f.id, f."from", coalesce(t.name, f."table") AS parent, f."to"
            FROM pragma_foreign_key_list(?) AS f
            LEFT JOIN pragma_table_list AS t ON t.schema = 'main' AND t.name = f."table" COLLATE NOCASE
            ORDER BY f.id, f.seq
            """, arguments: [table])
        var keys: [ForeignKey] = []
        var lastID: Int?
        for row in rows {
            guard let id = row["id"] as Int?, let from = row["from"] as String?, let parent = row["parent"] as String?
            else { continue }
            let column = columns.first { $0 == from } ?? columns.first { $0.lowercased() == from.lowercased() } ?? from
            if id != lastID {
                keys.append(ForeignKey(columns: [], table: parent, referencedColumns: []))
                lastID = id
            }
            keys[keys.count - 1].columns.append(column)
            keys[keys.count - 1].referencedColumns.append((row["to"] as String?) ?? "")
        }
        return try keys.compactMap { key in
            guard key.referencedColumns.contains("") else { return key }
            let primaryKey = try String.fetchAll(
                db, sql: "SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk", arguments: [key.table])
            guard primaryKey.count == key.columns.count else { return nil }
            var key = key
            key.referencedColumns = primaryKey
            return key
        }
    }
}
