import Foundation
import Synchronization

/// Applies a message to the viewer's state, and returns the effects to
/// perform. It is pure, and reads no clock: a window carries the time it
/// arrived, the highlight timer's tick the time it fired.
func viewerUpdate(_ state: inout ViewerState, _ message: ViewerMessage) -> [ViewerEffect] {
    let columnsBefore = ColumnInputs(state)
    var effects = state.apply(message)
    switch message {
    case .resize, .opened:
        // What can change the columns or the screen's width: not every key, since
        // the widths are read from every cell of the window.
        state.keepColumnInView()
        ColumnInputs.keptCount.withLock { $0 += 1 }
    case .window where ColumnInputs(state) != columnsBefore:
        // A commit to another table, or to rows out of the window, changes no
        // cell: its window measures none again (most of a busy file's updates).
        state.keepColumnInView()
        ColumnInputs.keptCount.withLock { $0 += 1 }
    default:
        break
    }
    effects += state.readWholeRow()
    effects += state.setHighlightTimer()
    effects += state.observeAlert()
    return state.answerChangesLogReads(effects)
}

extension ViewerState {
    fileprivate mutating func apply(_ message: ViewerMessage) -> [ViewerEffect] {
        switch message {
        case let .resize(width, height):
            return resize(width: width, height: height)
        case let .key(key):
            let effects = handle(key)
            return effects + retryAfterFailure(after: effects)
        case let .tablesListed(entries):
            return tablesListed(entries)
        case let .tablesFailed(error):
            return tablesFailed(error)
        case .retryListing:
            return retryListing()
        case .retryOpen:
            return retryOpen()
        case let .tablesCounted(from, names, counts):
            return tablesCounted(from: from, names: names, counts: counts)
        case let .opened(viewed):
            let locate = pendingSheet?.locate
            return opened(viewed) + locateRow(locate, in: viewed)
        case let .openFailed(error, kind):
            return openFailed(error, kind)
        case let .window(value, now):
            return receiveBehindChangesLog(value, at: now) ?? receive(value, at: now)
        case let .resumed(now):
            return resume(at: now)
        case let .deletedRowsFound(source, ids):
            return deletedRowsFound(source, ids)
        case let .highlightTick(now):
            return highlightTick(at: now)
        case let .windowFailed(error, kind):
            return windowFailed(error, kind)
        case let .counted(count, isExact, seconds):
            return counted(count, isExact: isExact, seconds: seconds)
        case let .countEstimated(estimate):
            return countEstimated(estimate)
        case .countPauseEnded:
            return countPauseEnded()
        case let .rowsBeforeCounted(viewed, position, count, isExact, seconds):
            return rowsBeforeCounted(viewed, position, count, isExact: isExact, seconds: seconds)
        case let .rowsBeforeCountFailed(seconds):
            return rowsBeforeCountFailed(seconds: seconds)
        case .rowsBeforePauseEnded:
            return rowsBeforePauseEnded()
        case let .searched(result):
            return found(result)
        case let .searchFailed(error):
            return searchFailed(error)
        case let .filtered(viewed, scannedRows):
            return filtered(viewed, scannedRows: scannedRows)
        case let .filterFailed(error):
            return filterFailed(error)
        case let .liveness(note, reason):
            return noteLiveness(note: note, reason: reason)
        case let .commitsUnseen(note, reason):
            return commitsUnseen(note: note, reason: reason)
        case let .countFailed(error):
            return countFailed(error)
        case let .wholeRowRead(position, values):
            return wholeRowRead(position, values)
        case let .saveProgressed(rows):
            return saveProgressed(rows: rows)
        case let .saveNeedsConfirmation(request):
            return saveNeedsConfirmation(request)
        case let .saved(request, summary):
            return saved(request, summary)
        case let .saveFailed(error):
            return saveFailed(error)
        case let .alert(alertMessage):
            return receiveAlert(alertMessage)
        }
    }
}

/// What `keepColumnInView()` reads: the same after a window leaves the
/// columns as they were.
struct ColumnInputs: Equatable {
    var window: RowWindow?
    var columnNames: [String]?
    var hidden: Set<String>?
    var widths: [String: Int]?
    var width: Int

    init(_ state: ViewerState) {
        window = state.table?.window
        columnNames = state.table?.viewed.source.columnNames
        hidden = state.table?.hiddenColumns
        widths = state.table?.columnWidths
        width = state.width
    }

    /// The columns kept in view by `viewerUpdate` so far: the tests count them.
    static let keptCount = Mutex(0)
}
