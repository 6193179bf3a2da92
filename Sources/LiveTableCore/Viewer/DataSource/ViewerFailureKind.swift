/// What a failed read means for the view; each data source says which
/// of its errors mean what (`ViewerDataSource.failureKind(of:)`).
package enum ViewerFailureKind: Equatable, Sendable {
    /// It may work later (a lock held longer than the busy timeout, a hot
    /// journal that the next writer rolls back): the view stays, `not
    /// live`, and reads again on the next commit or key.
    case transient
    /// The table, a column or what a query reads is gone: back to the
    /// picker.
    case missingSource
    /// Anything else (a corrupt page…): the view stays, with the error.
    /// A query that writes, or holds several statements, is this on
    /// every database: bad input, not something gone (on the command
    /// line, like any failure to open, one line and status 1).
    case other
    /// Another file is at the path now (renamed over it, a remount), or
    /// none for now: the file at the path is opened again, as soon as
    /// there is one, in the same table, sort, filter and selection.
    case fileReplaced
}
