// MARK: - The columns sheet

extension DerivedSheet {
    /// The column that names each row of a columns sheet, its key.
    static let columnNameColumn = "column"

    /// `C`: the columns of the table or view on `viewed`, one row each: its
    /// type, NOT NULL, default, place in the primary key, whether it is
    /// unique, its indexes and where it points. Live as any query: a column
    /// added by another process appears. Nil for a query or a sheet of the
    /// viewer's, whose columns are its header.
    package static func columns(of viewed: ViewedSource) -> DerivedSheet? {
        guard case let .table(name) = viewed.target else { return nil }
        return DerivedSheet(
            kind: .columns(table: name), base: viewed.target, baseFilter: nil, sql: "",
            key: [columnNameColumn], name: "\(name): columns")
    }
}
