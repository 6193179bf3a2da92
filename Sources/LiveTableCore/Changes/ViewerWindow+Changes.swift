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
        let keyExpressions = viewed.ordering.keyColumns.map(\.expression)
        let identityIndices: [Int]?
        if viewed.source.identity == .none {
            identityIndices = nil
        } else {
            let indices = viewed.source.identityExpressions.compactMap { keyExpressions.firstIndex(of: $0) }
            identityIndices = indices.count == viewed.source.identityExpressions.count ? indices : nil
        }
        let rows = zip(window.positions, window.rows).map { position, cells in
            let id: StoredKey
            if let identityIndices, identityIndices.allSatisfy(position.key.indices.contains) {
                id = StoredKey(identityIndices.map { position.key[$0] })
            } else {
                id = StoredKey(position.key + [position.occurrence.databaseValue])
            }
            return WindowSnapshot.Row(id: id, cells: cells)
        }
        return WindowSnapshot(
            rows: rows, reachesStart: window.reachesStart, reachesEnd: window.reachesEnd, rowCount: rowCount)
    }
}
