import GRDB

// MARK: - The columns sheet on SQLite

extension DerivedSheet {
    /// What SQLite runs for this sheet: its SQL, or for a columns sheet,
    /// a query of the table's PRAGMA functions (read-only, and allowed by
    /// the `SourceAuthorizer`), written for the table as now named.
    func sqliteStatement(_ db: Database) throws -> String {
        guard case let .columns(name) = kind else { return sql }
        return Self.sqliteColumns(of: SQLDialect.sqlite.literal(try TableSchema.named(name, in: db).name.databaseValue))
    }

    /// `PRAGMA table_info`'s figures as it prints them, the hidden columns
    /// of a virtual table left out and generated ones kept (as the table's
    /// sheet shows them). Unique: alone in a complete unique index, or the
    /// whole primary key. The indexes, the targets of the foreign keys.
    private static func sqliteColumns(of table: String) -> String {
        """
        SELECT c.cid + 1 AS "#", c.name AS "column", c.type AS "type",
          CASE WHEN c."notnull" THEN 'yes' ELSE '' END AS "not null",
          coalesce(c.dflt_value, '') AS "default",
          CASE WHEN c.pk > 0 THEN CAST(c.pk AS TEXT) ELSE '' END AS "primary key",
          CASE WHEN EXISTS (
              SELECT 1 FROM pragma_index_list(\(table)) AS l
              WHERE l."unique" AND NOT l.partial
                AND (SELECT count(*) FROM pragma_index_info(l.name)) = 1
                AND (SELECT i.name FROM pragma_index_info(l.name) AS i) = c.name)
            OR (c.pk = 1 AND NOT EXISTS (SELECT 1 FROM pragma_table_xinfo(\(table)) AS o WHERE o.pk > 1))
            THEN 'yes' ELSE '' END AS "unique",
          coalesce((SELECT group_concat(name, ', ') FROM (
              SELECT l.name FROM pragma_index_list(\(table)) AS l, pragma_index_info(l.name) AS i
              WHERE i.name = c.name ORDER BY l.name)), '') AS "indexes",
          coalesce((SELECT group_concat(target, ', ') FROM (
              SELECT coalesce((
                  SELECT t.name FROM pragma_table_list AS t
                  WHERE t.schema = 'main' AND t.name = f."table" COLLATE NOCASE), f."table")
                || '.' || coalesce(f."to", (
                  SELECT p.name FROM pragma_table_info(f."table") AS p WHERE p.pk = f.seq + 1), '?') AS target
              FROM pragma_foreign_key_list(\(table)) AS f
              WHERE f."from" = c.name COLLATE NOCASE ORDER BY f.id)), '') AS "references"
        FROM pragma_table_xinfo(\(table)) AS c
        WHERE c.hidden <> 1
        ORDER BY 1
        """
    }
}
