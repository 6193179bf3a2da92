import GRDB

// MARK: - Foreign keys and the columns sheet

extension PostgresDataSource {
    /// One row per column of each foreign key, in key order; the parent
    /// as the picker names it (`PostgresRelation.displayName`).
    static let foreignKeysSQL = """
        SELECT c.oid, a.attname, rc.oid, rn.nspname, rc.relname, rc.relkind, ra.attname
        FROM pg_catalog.pg_constraint c
        CROSS JOIN LATERAL ROWS FROM (pg_catalog.unnest(c.conkey), pg_catalog.unnest(c.confkey))
          WITH ORDINALITY AS k(col, ref, n)
        JOIN pg_catalog.pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.col
        JOIN pg_catalog.pg_class rc ON rc.oid = c.confrelid
        JOIN pg_catalog.pg_namespace rn ON rn.oid = rc.relnamespace
        JOIN pg_catalog.pg_attribute ra ON ra.attrelid = c.confrelid AND ra.attnum = k.ref
        WHERE c.conrelid = $1::oid AND c.contype = 'f'
        ORDER BY c.conname, c.oid, k.n
        """

    static func foreignKeys(of relation: PostgresRelation, _ reader: PostgresReader) throws -> [ForeignKey] {
        var keys: [ForeignKey] = []
        var lastOID: String?
        for row in try reader.execute(foreignKeysSQL, [relation.oid]).rows where row.count == 7 {
            guard let oid = row[0], let column = row[1], let referenced = row[6],
                let parent = PostgresRelation(Array(row[2...5]))
            else { continue }
            if oid != lastOID {
                keys.append(ForeignKey(columns: [], table: parent.displayName, referencedColumns: []))
                lastOID = oid
            }
            keys[keys.count - 1].columns.append(column)
            keys[keys.count - 1].referencedColumns.append(referenced)
        }
        return keys
    }
}

extension DerivedSheet {
    /// What PostgreSQL runs for this sheet: its SQL, or for a columns
    /// sheet, a query of the catalog on the relation as now named.
    func postgresStatement(_ reader: PostgresReader) throws -> String {
        guard case let .columns(name) = kind else { return sql }
        let relation = try PostgresDataSource.relation(named: name, reader)
        return Self.postgresColumns(of: SQLDialect.postgres.literal(relation.quotedName.databaseValue))
    }

    /// The figures psql's `\d` shows, in the columns of SQLite's sheet.
    /// Unique: alone in a complete unique index (the primary key's too).
    private static func postgresColumns(of relation: String) -> String {
        """
        SELECT row_number() OVER (ORDER BY a.attnum) AS "#", a.attname AS "column",
          pg_catalog.format_type(a.atttypid, a.atttypmod) AS "type",
          CASE WHEN a.attnotnull THEN 'yes' ELSE '' END AS "not null",
          coalesce(pg_catalog.pg_get_expr(d.adbin, d.adrelid), '') AS "default",
          coalesce((SELECT pg_catalog.array_position(c.conkey, a.attnum)::text FROM pg_catalog.pg_constraint c
                    WHERE c.conrelid = a.attrelid AND c.contype = 'p'), '') AS "primary key",
          CASE WHEN EXISTS (SELECT FROM pg_catalog.pg_index i WHERE i.indrelid = a.attrelid AND i.indisunique
                AND i.indnkeyatts = 1 AND i.indkey[0] = a.attnum AND i.indpred IS NULL AND i.indexprs IS NULL)
            THEN 'yes' ELSE '' END AS "unique",
          coalesce((SELECT pg_catalog.string_agg(ic.relname::text, ', ' ORDER BY ic.relname) FROM pg_catalog.pg_index i
                    JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid
                    WHERE i.indrelid = a.attrelid AND a.attnum = ANY (i.indkey)), '') AS "indexes",
          coalesce((SELECT pg_catalog.string_agg(
                      CASE WHEN rn.nspname = 'public' THEN '' ELSE rn.nspname || '.' END
                        || rc.relname || '.' || ra.attname, ', ' ORDER BY f.conname)
                    FROM pg_catalog.pg_constraint f
                    CROSS JOIN LATERAL ROWS FROM (pg_catalog.unnest(f.conkey), pg_catalog.unnest(f.confkey)) AS k(col, ref)
                    JOIN pg_catalog.pg_class rc ON rc.oid = f.confrelid
                    JOIN pg_catalog.pg_namespace rn ON rn.oid = rc.relnamespace
                    JOIN pg_catalog.pg_attribute ra ON ra.attrelid = f.confrelid AND ra.attnum = k.ref
                    WHERE f.conrelid = a.attrelid AND f.contype = 'f' AND k.col = a.attnum), '') AS "references"
        FROM pg_catalog.pg_attribute a
        LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE a.attrelid = \(relation)::pg_catalog.regclass AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY 1
        """
    }
}
