import GRDB

// MARK: - Change highlighting

extension ViewerWindow {
    /// The rows of the window as change highlighting compares them: each
    /// identified by the identity values of its position (the rowid, or
    /// the primary key of a `WITHOUT ROWID` table), with its columns as
    /// cells, which hold every column the ordering sorts on.
    ///
    /// A row of a view or a query has no identity: it is its values and
    /// its rank among equal rows, so a changed row reads as another row.
    /// Such a host must not report departed rows as deletions.
    ///
    /// For example:
    ///
    /// ```swift
    /// let diff = highlighter.take(value.changeSnapshot(rowCount: nil), cause: .update, at: now)
    /// ```
    ///
    /// - parameter rowCount: The exact row count, or nil when not known.
    public func changeSnapshot(rowCount: Int?) -> WindowSnapshot<StoredKey> {
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

    /// True when the row ids of `changeSnapshot(rowCount:)` are row
    /// identities (the rowid, or the primary key of a `WITHOUT ROWID`
    /// table) that `RowSource.identityLookup` looks up: departed rows can
    /// then be told deleted. False for a view or a query.
    public var identifiesRows: Bool {
        identityIndices != nil && viewed.source.identityLookup != nil
    }

    /// For each identity expression of the source, the index of its value
    /// in a row position's key; nil when the source has no identity.
    private var identityIndices: [Int]? {
        guard viewed.source.identity != .none else { return nil }
        let keyExpressions = viewed.ordering.keyColumns.map(\.expression)
        let indices = viewed.source.identityExpressions.compactMap { keyExpressions.firstIndex(of: $0) }
        return indices.count == viewed.source.identityExpressions.count ? indices : nil
    }
}

extension RowSource {
    /// The lookup of this table's rows by identity (its rowid or primary
    /// key), which tells the deleted rows among those that left a window;
    /// nil for a view or a query, whose rows have no identity.
    ///
    /// The ids of a `ViewerWindow.changeSnapshot(rowCount:)` whose
    /// `identifiesRows` is true are its identities.
    var identityLookup: RowIdentityLookup? {
        guard !isQuery, identity != .none else { return nil }
        return RowIdentityLookup(from: from, identity: identityExpressions, dialect: dialect)
    }
}
