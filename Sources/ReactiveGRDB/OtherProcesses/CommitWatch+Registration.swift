import GRDB
import Synchronization

extension CommitWatch {
    /// A listener's registration: cancel it to stop listening.
    final class Registration: Sendable {
        private let watch: Mutex<CommitWatch?>
        private let id: Int

        init(watch: CommitWatch, id: Int) {
            self.watch = Mutex(watch)
            self.id = id
        }

        /// Makes GRDB notify the observations of the writer, once for all
        /// the listeners that ask after the same commits.
        func notifyChanges() {
            let watch = self.watch.withLock { $0 }
            watch?.notifyWriter()
        }

        /// A read-only connection to the database, for the fetches of the
        /// listeners of a writable `DatabasePool`, nil for other databases.
        var refetchReader: (any DatabaseReader)? {
            watch.withLock { $0 }?.refetcher
        }

        /// The number of commits of the app's writer so far.
        var ownCommitCount: Int {
            watch.withLock { $0 }?.ownCommits?.count ?? 0
        }

        /// Tells the watch that the listener wants commits again, after it
        /// had one to read already: the watch looks at once.
        func listenerWantsCommits() {
            let watch = self.watch.withLock { $0 }
            watch?.listenerWantsCommits()
        }

        /// Stops listening. The last registration of a watch stops it, and
        /// closes its connection.
        func cancel() {
            let watch = self.watch.withLock { watch in
                defer { watch = nil }
                return watch
            }
            watch?.removeListener(id: id)
        }

        deinit {
            cancel()
        }
    }
}
