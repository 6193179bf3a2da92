extension SQLDialect {
    /// The search is on the value's text, so any type: `$1`, of unknown
    /// type, resolves to text, lower's preferred type, without a cast.
    /// NULL last ascending, first descending, as a B-tree read backwards.
    package static let postgres: SQLDialect = {
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
