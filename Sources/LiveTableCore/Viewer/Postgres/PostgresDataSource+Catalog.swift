import Foundation
import GRDB
import PostgresClient

// MARK: - The catalog

/// A table, view, materialized view or foreign table, with its schema.
///
/// Shown bare in `public` (`tracks`), else qualified (`sales.orders`), each
/// part quoted only when it holds a dot or a double quote: the picker opens
/// an entry by its name, and a public table `sales.orders` would otherwise
/// open the schema `sales`'s `orders`. A name to open is matched exactly,
/// then as a public table's name, as `schema.table`, as SQL reads it
/// (`sales."Order"`), then ignoring case.
struct PostgresRelation: Equatable, Sendable {
    var oid: String
    var schema: String
    var name: String
    /// `pg_class.relkind`: r, p, v, m, f.
    var relkind: String

    var displayName: String {
        schema == "public" ? Self.part(name) : Self.part(schema) + "." + Self.part(name)
    }

    private static func part(_ text: String) -> String {
        text.contains(".") || text.contains("\"") ? text.quotedSQLIdentifier : text
    }

    var kind: TableSchema.Kind {
        switch relkind {
        case "v": return .view
        case "m": return .materializedView
        case "f": return .foreignTable
        default: return .table
        }
    }
}

extension PostgresDataSource {
    /// Every schema but PostgreSQL's own; partitioned tables, not their
    /// partitions; readable in some columns at least (`GRANT SELECT (id)`).
    static let listSQL = """
        SELECT c.oid, n.nspname, c.relname, c.relkind
        FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND NOT c.relispartition
          AND n.nspname NOT IN ('pg_catalog', 'information_schema')
          AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp\\_%'
          AND has_schema_privilege(n.oid, 'USAGE') AND has_any_column_privilege(c.oid, 'SELECT')
        """

    /// Readable or not: a table the role may not read is refused by the
    /// server in one line, rather than said to be missing.
    static let allRelationsSQL = """
        SELECT c.oid, n.nspname, c.relname, c.relkind
        FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f')
          AND n.nspname NOT IN ('pg_catalog', 'information_schema')
          AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp\\_%'
        """

    static func relations(_ reader: PostgresReader, sql: String) throws -> [PostgresRelation] {
        TableSchema.listed(try reader.execute(sql).rows.compactMap(PostgresRelation.init), name: \.displayName)
    }

    static func relation(named name: String, _ reader: PostgresReader) throws -> PostgresRelation {
        // By pg_class's index on names: the picker opens and counts its
        // entries one by one, and a database may hold thousands.
        let afterDot = name.split(separator: ".", maxSplits: 1).last.map(String.init) ?? name
        let candidates = try reader.execute(
            allRelationsSQL + " AND c.relname IN ($1, $2)", [name, afterDot]).rows.compactMap(PostgresRelation.init)
        if let found = candidates.first(where: { $0.displayName == name })
            ?? candidates.first(where: { $0.schema == "public" && $0.name == name })
            ?? candidates.first(where: { $0.schema + "." + $0.name == name })
        {
            return found
        }
        let all = try relations(reader, sql: allRelationsSQL)
        if let found = all.first(where: { $0.displayName == name })
            ?? all.first(where: { $0.schema == "public" && $0.name == name })
            ?? all.first(where: { $0.schema + "." + $0.name == name })
            ?? sqlName(name).flatMap({ parts in all.first { ($0.schema, $0.name) == parts } })
            ?? all.first(where: { $0.displayName.lowercased() == name.lowercased() })
        {
            return found
        }
        throw SourceError.noSuchTable(name: name, tables: try relations(reader, sql: listSQL).map(\.displayName))
    }

    /// Unquoted parts folded to lowercase; one part is in `public`.
    static func sqlName(_ name: String) -> (String, String)? {
        var parts: [String] = []
        var current = ""
        var scalars = Substring(name).unicodeScalars[...]
        var quotedPart = false
        while let scalar = scalars.popFirst() {
            if scalar == "\"" {
                while true {
                    guard let next = scalars.popFirst() else { return nil }
                    if next == "\"" {
                        if scalars.first == "\"" {
                            scalars.removeFirst()
                            current.unicodeScalars.append("\"")
                        } else {
                            break
                        }
                    } else {
                        current.unicodeScalars.append(next)
                    }
                }
                quotedPart = true
            } else if scalar == "." {
                parts.append(current)
                current = ""
                quotedPart = false
            } else {
                guard !quotedPart else { return nil }
                current += String(scalar).lowercased()
            }
        }
        parts.append(current)
        switch parts.count {
        case 1: return ("public", parts[0])
        case 2: return (parts[0], parts[1])
        default: return nil
        }
    }

    /// No default B-tree operator class, so `ORDER BY` refuses them (json,
    /// xml, geometric types, void…): ordered by their text.
    static let unorderableTypes: Set<UInt32> = [
        114, 199, 142, 143, 600, 1017, 601, 1018, 602, 1019, 603, 1020, 604, 1027, 628, 629, 718, 719,
        28, 1011, 29, 1012, 1033, 1034, 4072, 4073, 1790, 2201, 2970, 2949, 5038, 5039, 2278,
    ]

    /// Types whose equality is their text's. Others may print equal values
    /// differently (numeric `1.0` and `1.00`, float `-0`, bpchar's blanks).
    static let exactlyPrintedTypes: Set<UInt32> = [16, 17, 18, 20, 21, 23, 26, 1082, 1114, 1184, 2950]

    /// name, text, varchar: exact unless under a nondeterministic collation,
    /// which a query's result does not tell.
    static let textTypes: Set<UInt32> = [19, 25, 1043]

    /// A query's result columns, by their type's OID, as `format_type`
    /// names them: what a table's columns tell (a chart of a `timestamp`
    /// is a time series whatever its name). Others are left unnamed.
    static let typeNames: [UInt32: String] = [
        16: "boolean", 20: "bigint", 21: "smallint", 23: "integer", 25: "text", 700: "real",
        701: "double precision", 1700: "numeric", 1042: "character", 1043: "character varying",
        1082: "date", 1083: "time without time zone", 1114: "timestamp without time zone",
        1184: "timestamp with time zone", 1266: "time with time zone", 1186: "interval",
        114: "json", 3802: "jsonb", 17: "bytea", 2950: "uuid",
    ]

    /// The inexact columns' text, compared byte for byte under "C"; nil when
    /// every column is exact. Only those: the text of every row is made at
    /// each sort of a window.
    static func tieBreak(of expressions: [String], types: [UInt32?], _ reader: PostgresReader) throws -> String? {
        // A column ordered by its text is compared as text.
        var exact = exactlyPrintedTypes.union(unorderableTypes)
        var inexact = zip(expressions, types).filter { !exact.contains($0.1 ?? 0) }
        if inexact.contains(where: { textTypes.contains($0.1 ?? 0) }),
            // collisdeterministic is PostgreSQL 12's: read through jsonb, older
            // servers (all deterministic) answer too.
            try reader.execute(
                "SELECT NOT EXISTS (SELECT FROM pg_catalog.pg_collation c "
                    + "WHERE pg_catalog.to_jsonb(c) ->> 'collisdeterministic' = 'false')")
                .rows.first?.first == "t"
        {
            exact.formUnion(textTypes)
            inexact = inexact.filter { !exact.contains($0.1 ?? 0) }
        }
        guard !inexact.isEmpty else { return nil }
        // ROW(…): one expression, whose result is not named as a column
        // (`"v"::text` is, and `ORDER BY "v"` would be ambiguous).
        return "(ROW(" + inexact.map(\.0).joined(separator: ", ") + ")::text COLLATE \"C\")"
    }

    // MARK: - A table's schema

    /// The columns the role may read (all when none: the server refuses the
    /// table), whether a complete B-tree index leads with them, base type.
    static let columnsSQL = """
        SELECT a.attnum, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
          EXISTS (SELECT 1 FROM pg_catalog.pg_index i
                  JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid
                  JOIN pg_catalog.pg_am am ON am.oid = ic.relam
                  WHERE i.indrelid = a.attrelid AND i.indkey[0] = a.attnum
                    AND am.amname = 'btree' AND i.indpred IS NULL AND i.indisvalid),
          CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END, a.atttypid
        FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
        WHERE a.attrelid = $1::oid AND a.attnum > 0 AND NOT a.attisdropped
          AND (has_column_privilege(a.attrelid, a.attnum, 'SELECT') OR NOT has_any_column_privilege(a.attrelid, 'SELECT'))
        ORDER BY a.attnum
        """

    /// Columns whose type holds an unorderable one at any depth (composite,
    /// array, domain, range): `ORDER BY` refuses them.
    static let nestedUnorderableSQL = """
        WITH RECURSIVE nested(attnum, type) AS (
          SELECT a.attnum, a.atttypid FROM pg_catalog.pg_attribute a
          WHERE a.attrelid = $1::oid AND a.attnum > 0 AND NOT a.attisdropped
          UNION
          SELECT n.attnum, inner_.type
          FROM nested n JOIN pg_catalog.pg_type t ON t.oid = n.type
          CROSS JOIN LATERAL (
            SELECT t.typbasetype WHERE t.typtype = 'd'
            UNION ALL SELECT t.typelem WHERE t.typelem <> 0 AND t.typlen = -1
            UNION ALL SELECT ca.atttypid FROM pg_catalog.pg_attribute ca
              WHERE t.typtype = 'c' AND ca.attrelid = t.typrelid AND ca.attnum > 0 AND NOT ca.attisdropped
            UNION ALL SELECT r.rngsubtype FROM pg_catalog.pg_range r WHERE r.rngtypid = t.oid
          ) AS inner_(type))
        SELECT DISTINCT attnum FROM nested WHERE type = ANY ($2::pg_catalog.oid[])
        """

    static let unorderableTypesParameter = "{" + unorderableTypes.sorted().map(String.init).joined(separator: ",") + "}"

    /// Keys that can identify a row: valid, complete, on columns only, each
    /// under its own collation and default operator class, so that the
    /// order's equality is the index's (a unique index on `name COLLATE "C"`
    /// holds 'a' and 'A', which a case-insensitive `name` takes for one).
    /// None for a parent of inheritance children, whose ids may repeat its own.
    static let keysSQL = """
        SELECT i.indisprimary, i.indkey::text, i.indnkeyatts
        FROM pg_catalog.pg_index i
        WHERE i.indrelid = $1::oid AND i.indisunique AND i.indisvalid
          AND i.indpred IS NULL AND i.indexprs IS NULL
          AND NOT EXISTS (
            SELECT 1 FROM generate_series(0, i.indnkeyatts - 1) k
            JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[k]
            JOIN pg_catalog.pg_opclass o ON o.oid = i.indclass[k]
            WHERE i.indcollation[k] IS DISTINCT FROM a.attcollation OR NOT o.opcdefault)
          AND NOT EXISTS (
            SELECT 1 FROM pg_catalog.pg_inherits h JOIN pg_catalog.pg_class c ON c.oid = h.inhrelid
            WHERE h.inhparent = i.indrelid AND NOT c.relispartition)
        ORDER BY i.indisprimary DESC, i.indnkeyatts, i.indexrelid
        """

    /// A hash of the columns, indexes, foreign keys and inheritance children
    /// (which take the key's identity away); no row when the relation is gone.
    static let schemaVersionSQL = """
        SELECT hashtext(
          coalesce((SELECT string_agg(attnum || ':' || attname || ':' || atttypid || ':' || atttypmod || ':' || attnotnull, ',' ORDER BY attnum)
                    FROM pg_catalog.pg_attribute WHERE attrelid = r.oid AND attnum > 0 AND NOT attisdropped), '')
          || '|' ||
          coalesce((SELECT string_agg(indexrelid || ':' || indkey::text || ':' || indisvalid, ',' ORDER BY indexrelid)
                    FROM pg_catalog.pg_index WHERE indrelid = r.oid), '')
          || '|' || coalesce((SELECT string_agg(oid::text, ',' ORDER BY oid)
                              FROM pg_catalog.pg_constraint WHERE conrelid = r.oid AND contype = 'f'), '')
          || '|' || (SELECT count(*) FROM pg_catalog.pg_inherits WHERE inhparent = r.oid))
        FROM (SELECT to_regclass($1)::oid AS oid) r
        WHERE r.oid IS NOT NULL
        """

    static func schemaVersion(of relation: PostgresRelation, _ reader: PostgresReader) throws -> Int {
        try reader.fetchInt(schemaVersionSQL, arguments: [relation.quotedName.databaseValue]) ?? 0
    }

    /// Identity: the primary key, else the smallest unique index of NOT NULL
    /// columns, else none (all columns).
    static func schema(
        of relation: PostgresRelation, _ reader: PostgresReader
    ) throws -> (TableSchema, textOrdered: Set<String>, types: [UInt32?], cut: [String: (base: UInt32, type: UInt32)])
    {
        let rows = try reader.execute(columnsSQL, [relation.oid]).rows
        var names: [Int: String] = [:]
        var notNull: Set<Int> = []
        var columns: [SourceColumn] = []
        var textOrdered: Set<String> = []
        var types: [UInt32?] = []
        var cut: [String: (base: UInt32, type: UInt32)] = [:]
        let nestedUnorderable = Set(try reader.execute(nestedUnorderableSQL, [relation.oid, unorderableTypesParameter])
            .rows.compactMap { ($0.first ?? nil).flatMap { Int($0) } })
        for row in rows where row.count == 7 {
            guard let number = row[0].flatMap({ Int($0) }), let name = row[1] else { continue }
            names[number] = name
            let isNotNull = row[3] == "t"
            if isNotNull { notNull.insert(number) }
            if nestedUnorderable.contains(number) {
                textOrdered.insert(name)
            }
            types.append(row[5].flatMap { UInt32($0) })
            if let base = row[5].flatMap({ UInt32($0) }), longTypes.contains(base), let type = row[6].flatMap({ UInt32($0) }) {
                cut[name] = (base, type)
            }
            columns.append(SourceColumn(
                name: name, declaredType: row[2] ?? "", isIndexed: row[4] == "t", isNotNull: isNotNull))
        }
        var identity = RowIdentity.none
        for row in try reader.execute(keysSQL, [relation.oid]).rows where row.count == 3 {
            // indkey: "2 1"; beyond indnkeyatts are INCLUDE columns.
            let keyCount = row[2].flatMap { Int($0) } ?? 0
            let numbers = (row[1] ?? "").split(separator: " ").compactMap { Int($0) }.prefix(keyCount)
            guard !numbers.isEmpty, numbers.allSatisfy({ names[$0] != nil }) else { continue }
            if row[0] == "t" || numbers.allSatisfy(notNull.contains) {
                identity = .primaryKey(numbers.compactMap { names[$0] })
                break
            }
        }
        if case let .primaryKey(key) = identity {
            for index in columns.indices where key.contains(columns[index].name) {
                columns[index].isNotNull = true
            }
        }
        var table = TableSchema(
            name: relation.name, kind: relation.kind, columns: columns, identity: identity, schema: relation.schema)
        table.foreignKeys = try foreignKeys(of: relation, reader)
        return (table, textOrdered, types, cut)
    }

    /// Values long enough to cost a refresh: cut by the windows.
    static let longTypes: Set<UInt32> = [25, 1043, 17, 114, 3802, 142]

    /// More than the row view shows (`RowDetail.maximumBytes`).
    static let shownLength = RowDetail.maximumBytes + 1

    /// Cut on the server (`substr` reads only that much). The cut of a
    /// varchar or json is text: so that a retype is still seen by the window
    /// statement, a column of another type than `type` fails it.
    static func cut(_ expression: String, base: UInt32, type: UInt32) -> String {
        let text = [25, 1043, 17].contains(base) ? expression : expression + "::pg_catalog.text"
        let typeName = "pg_catalog.pg_typeof(\(expression))"
        return "CASE WHEN \(typeName) = \(type)::pg_catalog.regtype THEN pg_catalog.substr(\(text), 1, \(shownLength))"
            + " ELSE pg_catalog.substr(\(text), \(typeName)::pg_catalog.text::pg_catalog.int4, 1) END"
    }

    static func source(of relation: PostgresRelation, _ reader: PostgresReader) throws -> RowSource {
        let (table, textOrdered, types, cut) = try schema(of: relation, reader)
        var source = RowSource.table(table, dialect: .postgres)
        source.name = relation.displayName
        if table.identity == .none {
            source.tieBreakExpression = try tieBreak(of: source.columnExpressions, types: types, reader)
        }
        if !cut.isEmpty {
            source.shownExpressions = zip(table.columns, source.columnExpressions).map { column, expression in
                cut[column.name].map { Self.cut(expression, base: $0.base, type: $0.type) } ?? expression
            }
        }
        // A role that may read only some columns may not read `xmin`.
        if try reader.execute("SELECT has_table_privilege($1::oid, 'SELECT')", [relation.oid]).rows.first?.first != "t" {
            source.changeToken = nil
        }
        if !textOrdered.isEmpty {
            source.orderExpressions = zip(table.columns, source.columnExpressions).map { column, expression in
                textOrdered.contains(column.name) ? expression + "::text" : expression
            }
        }
        return source
    }
}

extension PostgresRelation {
    init?(_ row: [String?]) {
        guard row.count == 4, let oid = row[0], let schema = row[1], let name = row[2], let kind = row[3] else {
            return nil
        }
        self.init(oid: oid, schema: schema, name: name, relkind: kind)
    }

    var quotedName: String {
        SQLDialect.postgres.quotedTable(name, schema: schema)
    }
}
