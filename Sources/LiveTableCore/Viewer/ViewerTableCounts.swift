import Foundation

/// The picker's counts of the entries from index `from`, named `names`.
enum ViewerTableCounts {
    /// The counts as messages: one read each, on `queue`, each within
    /// `PickerEntry.countTimeLimit` (a slow view counts as nil, "?"). Each
    /// message holds every count so far, sent every 50 ms and at the end:
    /// many small tables make few messages. A cancel abandons the count
    /// that runs.
    static func job(
        from: Int, names: [String], kinds: [TableSchema.Kind], dataSource: any ViewerDataSource, queue: DispatchQueue
    ) -> NewestMessageJob {
        NewestMessageJob(queue: queue) { context in
            var counts: [RowCount?] = []
            var lastSent = ContinuousClock.now
            for (name, kind) in zip(names, kinds) {
                guard let ticket = context.nextTicket(timeLimit: PickerEntry.countTimeLimit) else { return }
                counts.append(try? dataSource.quickRowCount(ofTable: name, kind: kind, ticket: ticket))
                if counts.count == names.count || ContinuousClock.now - lastSent >= .milliseconds(50) {
                    context.send(.tablesCounted(from: from, names: names, counts: counts))
                    lastSent = ContinuousClock.now
                }
            }
        }
    }
}
