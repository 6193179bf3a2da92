extension SQLDialect {
    /// PostgreSQL's: `$1…$n`, `x = $1` for a key value and `x IS NULL`
    /// for a NULL one (`KeyEquality.equalsOrIsNull`: PostgreSQL's
    /// planner uses no index for `x IS NOT DISTINCT FROM $1`), NULL last
    /// in ascending order (first in descending order, as `ORDER BY x DESC`
    /// and a B-tree index read backwards give them), no index hint, the
    /// search on the value's text (`strpos(lower(x::text), lower($1)) > 0`:
    /// any type, no `LIKE` pattern; `$1`, of unknown type, is resolved to
    /// text, lower's preferred type, without a cast),
    /// `count(*)` of an aliased subquery, `xmin` as the change token of a
    /// table's rows.
    ///
    /// The PostgreSQL implementation of the viewer's data layer
    /// (`PostgresDataSource`) makes its sources with it
    /// (`RowSource.table(_:dialect:)`) and runs the statements on a
    /// connection that conforms to `RowReading`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let source = RowSource.table(schema, dialect: .postgres)
    /// ```
    public static let postgres: SQLDialect = {
        var dialect = SQLDialect(
            placeholders: .dollarNumbers,
            keyEquality: .equalsOrIsNull,
            sortsNullsFirst: false,
            supportsIndexedBy: false,
            containment: Containment(beforeColumn: "strpos(lower(", beforeText: "::text), lower(", afterText: ")) > 0"),
            trueCondition: "TRUE",
            subqueryAlias: " AS \"rows\"")
        dialect.changeToken = "xmin"
        dialect.lexicon = .postgres
        return dialect
    }()
}
