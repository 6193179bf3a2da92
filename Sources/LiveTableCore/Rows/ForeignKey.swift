/// A foreign key of a table: its columns, and the table and columns their
/// values are found in. `o` follows it; the row view says where it points.
package struct ForeignKey: Equatable, Sendable {
    /// In the key's order, as the table names them.
    package var columns: [String]
    /// As the viewer opens it (`ViewerTarget.table`).
    package var table: String
    /// One for each of `columns`, in the same order.
    package var referencedColumns: [String]

    package init(columns: [String], table: String, referencedColumns: [String]) {
        self.columns = columns
        self.table = table
        self.referencedColumns = referencedColumns
    }

    /// `customers.id`: where `column`'s value points.
    package func target(of column: String) -> String? {
        columns.firstIndex(of: column).map { "\(table).\(referencedColumns[$0])" }
    }
}

extension RowSource {
    /// The first foreign key that `column` is part of.
    package func foreignKey(of column: String) -> ForeignKey? {
        foreignKeys.first { $0.columns.contains(column) }
    }

    /// For the row view: `→ customers.id` after each column that references
    /// another table, nil after the others.
    package var referenceNotes: [String?] {
        columnNames.map { name in
            let targets = foreignKeys.compactMap { $0.target(of: name) }
            return targets.isEmpty ? nil : "→ " + targets.joined(separator: ", ")
        }
    }
}
