import Foundation
import GRDB
import OpenCombine

/// What the viewer screen needs from a database. `ViewerProgram` holds one
/// and never asks which database it is: each implementation owns its
/// dialect, connections and errors. (Not the *source* on screen:
/// `ViewedSource`, a table, view or query.)
///
/// The reads are synchronous, called off the main thread, maybe several at
/// once (the implementation serializes them on its connections). Each takes
/// a `ReadTicket`: when the screen leaves a read, the ticket interrupts it so
/// that the connection is free at once, and the read throws. Every
/// implementation passes the contract suite,
/// Tests/LiveTableCoreTests/Viewer/DataSourceContract: read it for examples.
package protocol ViewerDataSource: Sendable {
    // MARK: - Naming

    /// One line for the title, never a password.
    var name: String { get }

    /// The file viewed, which a save must never replace; nil for a server.
    var viewedFile: String? { get }

    // MARK: - Reads

    func listTables(ticket: ReadTicket) throws -> [(name: String, kind: TableSchema.Kind)]

    /// The picker's count: exact when it is quick, else estimated or a lower
    /// bound, within the ticket's time limit.
    func quickRowCount(ofTable name: String, kind: TableSchema.Kind, ticket: ReadTicket) throws -> RowCount

    func open(_ target: ViewerTarget, sortColumn: String?, descending: Bool, ticket: ReadTicket) throws -> ViewedSource

    /// In short reads, so that no writer waits long: exact unless another
    /// process committed during the count.
    func countRows(of source: RowSource, ticket: ReadTicket) throws -> RowCount

    /// The database's own estimate, without a scan, for the title while the
    /// count runs; nil when it has none or the count is quick anyway.
    func estimatedRowCount(of source: RowSource, ticket: ReadTicket) throws -> Int?

    /// The title's exact position beyond `ViewerWindow.rankLimit`, counted
    /// as `countRows(of:ticket:)` counts.
    func countRows(of viewed: ViewedSource, before position: RowPosition, ticket: ReadTicket) throws -> RowCount

    func search(_ search: RowSearch, in viewed: ViewedSource, ticket: ReadTicket) throws -> RowSearchResult

    /// nil clears the filter. `scannedRows`: what each read scans when no
    /// index helps.
    func filter(
        _ viewed: ViewedSource, by expression: String?, ticket: ReadTicket
    ) throws -> (viewed: ViewedSource, scannedRows: RowCount?)

    /// Of the rows that left the window, the ones that are gone; only for a
    /// source with an identity.
    func missingRows(of source: RowSource, among keys: [StoredKey], ticket: ReadTicket) throws -> [StoredKey]

    /// The row's values whole where the windows cut them (PostgreSQL's long
    /// values); nil where they are whole already, or the row is gone.
    func wholeRow(of viewed: ViewedSource, at position: RowPosition, ticket: ReadTicket) throws -> [DatabaseValue]?

    /// In constant memory, each piece to `write` as it is ready, with the
    /// rows written so far. An abandoned ticket stops it: it throws.
    func export(
        _ plan: ExportPlan, format: ExportFormat, ticket: ReadTicket,
        write: (UnsafeRawBufferPointer, _ rows: Int) throws -> Void
    ) throws -> RowExport.Summary

    // MARK: - Live

    /// Read at subscription and after each commit of any process, paced
    /// during a burst; delivered on the main queue. A transient failure
    /// (locked, unreachable for now) is an element and the reads go on; any
    /// other failure ends it. Cancelling interrupts the read that runs.
    func windows(of viewed: ViewedSource, _ request: RowWindowRequest) -> AnyPublisher<ViewerWindowRead, any Error>

    /// The title's note when commits are polled; on the main queue, maybe
    /// never.
    func liveness() -> AnyPublisher<ViewerLiveness, Never>

    // MARK: - Errors

    /// One line for the status line, never a password.
    func describe(_ error: any Error) -> String

    func failureKind(of error: any Error) -> ViewerFailureKind
}

package enum ViewerWindowRead: Sendable {
    case window(ViewerWindow)
    /// Read again when it may work.
    case transientFailure(any Error)
}

/// How a data source sees commits, for the title: a note when it polls.
package struct ViewerLiveness: Equatable, Sendable {
    /// "polled every 0.1 s: fuse".
    package var note: String
    /// nil when the user asked for polling.
    package var reason: String?
    /// False when other machines' commits can not be seen at all (a WAL
    /// file on a network or FUSE file system).
    package var seesOtherMachines: Bool

    package init(note: String, reason: String?, seesOtherMachines: Bool = true) {
        self.note = note
        self.reason = reason
        self.seesOtherMachines = seesOtherMachines
    }
}

extension ViewerDataSource {
    package var viewedFile: String? { nil }

    /// Every row and column of `source`, in its natural order.
    package func export(
        _ source: RowSource, format: ExportFormat, write: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> RowExport.Summary
    {
        try export(ExportPlan(source: source), format: format, ticket: ReadTicket()) { bytes, _ in try write(bytes) }
    }

    package func wholeRow(of viewed: ViewedSource, at position: RowPosition, ticket: ReadTicket) throws -> [DatabaseValue]? {
        nil
    }
}
