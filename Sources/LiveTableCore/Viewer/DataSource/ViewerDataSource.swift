import Foundation
import GRDB
import OpenCombine

/// What the viewer screen needs from a database: the tables, a source to
/// view, its window as it changes, its row count, a search, a filter, the
/// rows that left, an export, and how to describe what fails.
///
/// `ViewerProgram` holds one, and never asks which database it is: each
/// implementation owns its dialect, its connections and its errors.
/// `SQLiteDataSource` (a SQLite file, through GRDB) is the first one. A
/// "data source" in the sense of a table view's: not to be confused with
/// the *source* on screen (`ViewedSource`: a table, a view or a query of
/// it).
///
/// The reads are synchronous: `ViewerProgram` calls them off the main
/// thread, from any thread, maybe several at once (the implementation
/// serializes them on its connections). Each takes a `ReadTicket`: when
/// the screen leaves a read (another search, another table), the ticket
/// interrupts it on its connection, so that the connection is free for
/// the next read at once; an implementation registers how
/// (`ReadTicket.setRunning(interrupt:)`). An abandoned read throws.
///
/// For example:
///
/// ```swift
/// let dataSource: any ViewerDataSource = try SQLiteDataSource.open(path: "app.sqlite")
/// let ticket = ReadTicket(timeLimit: 1)
/// let viewed = try dataSource.open(.table("orders"), sortColumn: nil, descending: false, ticket: ticket)
/// let count = try dataSource.countRows(of: viewed.source, ticket: ReadTicket())
/// print("\(dataSource.name): \(count.value) orders") // app.sqlite: 42 orders
/// ```
public protocol ViewerDataSource: Sendable {
    // MARK: - Naming

    /// The database's name in the title and the picker, one line, never a
    /// password: "app.sqlite" (the file name).
    var name: String { get }

    // MARK: - Reads

    /// The names and kinds of the tables and views, at once (one query;
    /// their counts come from `quickRowCount(ofTable:kind:ticket:)`).
    ///
    /// - throws: The database's error (`describe(_:)`).
    func listTables(ticket: ReadTicket) throws -> [(name: String, kind: TableSchema.Kind)]

    /// The picker's count of a table: exact when it is quick, or
    /// estimated, or a lower bound. The caller gives a ticket with a time
    /// limit (`PickerEntry.countTimeLimit`).
    func quickRowCount(ofTable name: String, kind: TableSchema.Kind, ticket: ReadTicket) throws -> RowCount

    /// Opens a table, view or query to view, in the order of
    /// `sortColumn` if any.
    ///
    /// - throws: A missing table, column, an invalid query, or the
    ///   database's error; `failureKind(of:)` says which.
    func open(_ target: ViewerTarget, sortColumn: String?, descending: Bool, ticket: ReadTicket) throws -> ViewedSource

    /// Counts the rows of `source`, in short reads so that no writer is
    /// kept waiting long: exact unless another process committed during
    /// the count.
    func countRows(of source: RowSource, ticket: ReadTicket) throws -> RowCount

    /// The database's own estimate of the rows of `source`, read at once
    /// (no scan), for the title while `countRows(of:ticket:)` runs; nil
    /// when it has none (a query, a filter, a table never analysed), or
    /// when the count is quick anyway (SQLite's, in short reads).
    ///
    /// For example:
    ///
    /// ```swift
    /// if let estimate = try dataSource.estimatedRowCount(of: viewed.source, ticket: ReadTicket()) {
    ///     print("about \(estimate) rows")
    /// }
    /// ```
    func estimatedRowCount(of source: RowSource, ticket: ReadTicket) throws -> Int?

    /// Counts the rows of `viewed` before `position` in its ordering
    /// (`RowOrdering.countRows(_:in:before:)`: one `COUNT(*)` of each
    /// keyset range before it): the title's exact position beyond
    /// `ViewerWindow.rankLimit`. Under the database's limits on a read
    /// (PostgreSQL's statement timeout); in short reads where a reader
    /// keeps a writer waiting (SQLite), as `countRows(of:ticket:)` counts:
    /// exact unless another process committed during the count.
    ///
    /// For example:
    ///
    /// ```swift
    /// let before = try dataSource.countRows(of: viewed, before: selection, ticket: ReadTicket())
    /// print("row \(before.value + 1)")
    /// ```
    func countRows(of viewed: ViewedSource, before position: RowPosition, ticket: ReadTicket) throws -> RowCount

    /// Runs `search` on `viewed`, which may read many rows until one
    /// matches.
    func search(_ search: RowSearch, in viewed: ViewedSource, ticket: ReadTicket) throws -> RowSearchResult

    /// Checks `expression` as a filter of `viewed` (nil: clears it): the
    /// source filtered, and the rows each read scans when no index helps.
    ///
    /// - throws: The database's message about an invalid filter.
    func filter(
        _ viewed: ViewedSource, by expression: String?, ticket: ReadTicket
    ) throws -> (viewed: ViewedSource, scannedRows: RowCount?)

    /// Of the rows of `source` identified by `keys` (rows that left the
    /// window), the ones that are gone. Only called when the source has
    /// an identity (`RowSource.identityLookup`).
    func missingRows(of source: RowSource, among keys: [StoredKey], ticket: ReadTicket) throws -> [StoredKey]

    /// The row at `position` with its values whole, where the windows read
    /// them cut (PostgreSQL's long values); nil where they are whole
    /// already (the default), or when the row is gone.
    func wholeRow(of viewed: ViewedSource, at position: RowPosition, ticket: ReadTicket) throws -> [DatabaseValue]?

    /// Writes all rows of `source` in `format`, in constant memory, each
    /// piece to `write` as it is ready.
    ///
    /// - returns: What was written, and a warning if some text was not
    ///   valid.
    func export(
        _ source: RowSource, format: ExportFormat, write: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> RowExport.Summary

    // MARK: - Live

    /// The window `request` of `viewed`, read off the main thread at
    /// subscription and again after each commit of any process, paced
    /// during a burst of commits; delivered on the main queue. A transient
    /// failure (the database locked, or unreachable for now) is an
    /// element, after which the publisher goes on and reads again when it
    /// can; any other failure ends it. Cancelling the subscription
    /// interrupts the read that runs.
    func windows(of viewed: ViewedSource, _ request: RowWindowRequest) -> AnyPublisher<ViewerWindowRead, any Error>

    /// What the title says of how commits are seen, when it is not by
    /// events: "polled every 0.1 s: fuse". Delivered on the main queue,
    /// from subscription; may never send anything.
    func liveness() -> AnyPublisher<ViewerLiveness, Never>

    // MARK: - Errors

    /// `error`, thrown by one of these reads or publishers, in one line
    /// for the status line, naming the database and never a password.
    func describe(_ error: any Error) -> String

    /// What `error`, thrown by one of these reads or publishers, means for
    /// the view.
    func failureKind(of error: any Error) -> ViewerFailureKind
}

/// A value of `ViewerDataSource.windows(of:_:)`: a window, or a transient
/// failure, after which the windows go on.
public enum ViewerWindowRead: Sendable {
    /// The window, as it is now.
    case window(ViewerWindow)
    /// The window can not be read for now (`ViewerFailureKind.transient`):
    /// it is read again when it may work.
    case transientFailure(any Error)
}

/// How a data source sees commits, for the title: a note when it polls.
///
/// For example:
///
/// ```swift
/// ViewerLiveness(note: "polled every 0.1 s: fuse", reason: "/mnt is on fuse")
/// ```
public struct ViewerLiveness: Equatable, Sendable {
    /// The title's note: "polled every 0.1 s: fuse".
    public var note: String
    /// Why it polls, in one line; nil when the user asked for it.
    public var reason: String?
    /// False when other machines' commits can not be seen at all (a WAL
    /// file on a network or FUSE file system): `reason` says why.
    public var seesOtherMachines: Bool

    /// Creates a note for the title.
    public init(note: String, reason: String?, seesOtherMachines: Bool = true) {
        self.note = note
        self.reason = reason
        self.seesOtherMachines = seesOtherMachines
    }
}

extension ViewerDataSource {
    /// nil: the windows read every value whole.
    public func wholeRow(of viewed: ViewedSource, at position: RowPosition, ticket: ReadTicket) throws -> [DatabaseValue]? {
        nil
    }
}
