import GRDB

// MARK: - Change highlighting

extension ViewerWindow {
    /// The rows as change highlighting compares them, identified by rowid or
    /// primary key. A view's or a query's row has no identity: it is its values
    /// and its rank among equal rows, so a changed row reads as another row,
    /// and departed rows must not be reported as deletions.
    package func changeSnapshot(rowCount: Int?) -> WindowSnapshot<StoredKey> {
        let identityIndices = self.identityIndices
        let tokens = window.changeTokens
        let rows = zip(window.positions, window.rows).enumerated().map { index, element in
            let (position, cells) = element
            let id: StoredKey
            if let identityIndices, identityIndices.allSatisfy(position.key.indices.contains) {
                id = StoredKey(identityIndices.map { position.key[$0] })
            } else {
                id = StoredKey(position.key + [position.occurrence.databaseValue])
            }
            let token = tokens.flatMap { $0.indices.contains(index) ? $0[index] : nil }
            return WindowSnapshot.Row(id: id, cells: cells, changeToken: token)
        }
        return WindowSnapshot(
            rows: rows, reachesStart: window.reachesStart, reachesEnd: window.reachesEnd, rowCount: rowCount)
    }

    /// Departed rows can then be told deleted (a table with a rowid or a
    /// primary key, not a view or a query).
    package var identifiesRows: Bool {
        identityIndices != nil && viewed.source.identityLookup != nil
    }

    private var identityIndices: [Int]? {
        guard viewed.source.identity != .none else { return nil }
        let keyExpressions = viewed.ordering.keyColumns.map(\.expression)
        let indices = viewed.source.identityExpressions.compactMap { keyExpressions.firstIndex(of: $0) }
        return indices.count == viewed.source.identityExpressions.count ? indices : nil
    }
}

extension RowSource {
    /// Tells the deleted rows among those that left a window; nil for a view
    /// or a query, whose rows have no identity.
    var identityLookup: RowIdentityLookup? {
        guard !isQuery, identity != .none else { return nil }
        return RowIdentityLookup(from: from, identity: identityExpressions, dialect: dialect)
    }
}
