import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// The viewer's program on the app loop, on files whose reads never end
/// (a recursive view with no row) or fail (a lock that another process
/// holds, a hot journal left by a writer that died, a value a filter can
/// not read): a read that is left is interrupted, the picker lists the
/// names at once, and a failure keeps the view.
final class ViewerInterruptionTests: XCTestCase {
    /// A file with `item` (20 rows) and `forever`, a view whose read never
    /// ends: its recursion runs forever and returns no row.
    private func makeFile(journal: String = "DELETE") throws -> String {
        let path = try makeTemporaryDirectory().appendingPathComponent("slow.sqlite").path
        try ForeignFile.sqlite3(path, """
            PRAGMA journal_mode = \(journal);
            CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20)
            INSERT INTO item(name) SELECT printf('item %02d', i) FROM n;
            CREATE VIEW forever AS
                WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)
                SELECT x FROM c WHERE x < 0;
            """)
        return path
    }

    /// The window failures that the loop handled.
    private let failures = FailureLog()

    @MainActor
    private func makeLoop(_ database: SQLiteDataSource, opening target: ViewerTarget?) throws -> AppLoop<LoggingProgram> {
        let viewed = try target.map { target in
            try database.read { db in try ViewedSource.open(target, sortColumn: nil, descending: false, in: db) }
        }
        let loop = AppLoop(
            program: LoggingProgram(base: ViewerProgram(dataSource: database), failures: failures),
            state: .initial(databaseName: "slow.sqlite", opened: viewed, width: 60, height: 10))
        loop.start(host: SilentHost())
        loop.send(.resize(width: 60, height: 10))
        return loop
    }

    // MARK: - Abandoned reads

    func testLeavingAViewWhoseReadNeverEndsOpensTheNextTablePromptly() throws {
        let database = try SQLiteDataSource.open(path: try makeFile())
        try MainActor.assumeIsolated {
            let loop = try makeLoop(database, opening: .table("forever"))
            defer { loop.stop() }
            // Its window and its count run, and would never end.
            XCTAssertTrue(waitUntil("the reads of the view run") {
                database.interrupters.reader.runningTicket != nil
                    && database.interrupters.background.runningTicket != nil
            })
            loop.send(.key(.character("t")))
            XCTAssertTrue(waitUntil("the picker's names") {
                loop.state.picker.entries?.map(\.name) == ["forever", "item"]
            })
            loop.send(.key(.down))
            loop.send(.key(.enter))
            XCTAssertTrue(waitUntil("the next table's window and count") {
                loop.state.table?.viewed.source.name == "item" && loop.state.table?.window?.rows.count == 18
                    && loop.state.table?.rowCount == 20
            })
        }
    }

    func testASortLeavesTheWindowOfTheOrderOnScreen() throws {
        let database = try SQLiteDataSource.open(path: try makeFile())
        try MainActor.assumeIsolated {
            let loop = try makeLoop(database, opening: .table("forever"))
            defer { loop.stop() }
            XCTAssertTrue(waitUntil("the window's read runs") { database.interrupters.reader.runningTicket != nil })
            // The new order opens on the connection of the window.
            loop.send(.key(.character("]")))
            XCTAssertTrue(waitUntil("the new order opened") { loop.state.table?.viewed.ordering.sortColumn == "x" })
        }
    }

    func testEscapeInterruptsTheCheckOfAFilter() throws {
        let database = try SQLiteDataSource.open(path: try makeFile())
        try MainActor.assumeIsolated {
            let loop = try makeLoop(database, opening: .table("forever"))
            defer { loop.stop() }
            XCTAssertTrue(waitUntil("the count runs") { database.interrupters.background.runningTicket != nil })
            let count = database.interrupters.background.runningTicket
            // The check of a filter on a scanned view counts its rows: it
            // never ends.
            loop.send(contentsOf: [.key(.character("f"))] + "x > 0".map { .key(.character($0)) } + [.key(.enter)])
            XCTAssertNotNil(loop.state.table?.pendingFilter)
            XCTAssertTrue(waitUntil("the check runs") {
                let running = database.interrupters.background.runningTicket
                return running != nil && running !== count
            })
            let check = database.interrupters.background.runningTicket
            loop.send(.key(.escape))
            XCTAssertEqual(loop.state.message, .notice("filter cancelled"))
            XCTAssertTrue(waitUntil("the check is interrupted, and the next read runs") {
                database.interrupters.background.runningTicket !== check
            })
        }
    }

    func testConnectionsCloseWithTheirDatabase() throws {
        var database: SQLiteDataSource? = try SQLiteDataSource.open(path: try makeFile())
        weak let reader = database?.reader
        weak let background = database?.backgroundReader
        XCTAssertNotNil(reader)
        database = nil
        XCTAssertNil(reader, "the interrupter keeps no connection alive")
        XCTAssertNil(background)
    }

    // MARK: - The picker

    func testPickerListsTheNamesAtOnceAndCountsEachWithinItsTimeLimit() throws {
        let database = try SQLiteDataSource.open(path: try makeFile())
        try MainActor.assumeIsolated {
            let loop = try makeLoop(database, opening: nil)
            defer { loop.stop() }
            XCTAssertTrue(waitUntil("the counts", timeout: 10 + PickerEntry.countTimeLimit) {
                loop.state.picker.entries?.allSatisfy { !$0.isCounting } == true
            })
            let entries = try XCTUnwrap(loop.state.picker.entries)
            XCTAssertEqual(entries.map(\.name), ["forever", "item"])
            XCTAssertEqual(entries.map(\.count), [nil, .exact(20)], "the view ran out of time")
            let text = viewerRender(loop.state).text
            XCTAssertTrue(text.contains(" forever ") && text.contains(" ?"), text)
        }
    }

    func testPickerCountsGoOnAfterAnOpeningThatFailed() {
        var state = ViewerState.initial(databaseName: "slow.sqlite", opened: nil, width: 60, height: 10)
        XCTAssertEqual(viewerUpdate(&state, .resize(width: 60, height: 10)), [.listTables])
        let names = ["forever", "item"]
        let listed = names.map { PickerEntry(name: $0, kind: $0 == "item" ? .table : .view, count: nil, isCounting: true) }
        // The counts run; Enter leaves them for the opening, which fails.
        XCTAssertEqual(viewerUpdate(&state, .tablesListed(listed)),
                       [.countTables(from: 0, names: names, kinds: [.view, .table])])
        XCTAssertEqual(viewerUpdate(&state, .key(.enter)).first, .stop(.tableCounts))
        XCTAssertEqual(viewerUpdate(&state, .openFailed("locked", .transient)),
                       [.countTables(from: 0, names: names, kinds: [.view, .table])])
    }

    // MARK: - Failures

    func testALockHeldLongerThanTheBusyTimeoutKeepsTheViewUntilTheNextCommit() throws {
        let path = try makeFile()
        let database = try SQLiteDataSource.open(path: path)
        try MainActor.assumeIsolated {
            let loop = try makeLoop(database, opening: .table("item"))
            defer { loop.stop() }
            XCTAssertTrue(waitUntil("the first window") { loop.state.table?.isLive == true && loop.state.table?.rowCount == 20 })

            let holder = try LockHolder(path: path)
            defer { holder.stop() }
            loop.send(.key(.end))  // a window that must be read
            // Read again, and failed again: the lock is held for longer
            // than a read waits.
            XCTAssertTrue(waitUntil("two failures") { failures.windowFailures >= 2 })
            let table = try XCTUnwrap(loop.state.table, "the view stays")
            XCTAssertFalse(table.isLive)
            XCTAssertEqual(table.window?.rows.count, 18, "its rows stay")
            XCTAssertTrue(viewerRender(loop.state).text.contains("not live"))
            guard case let .error(message)? = loop.state.message else { return XCTFail("no error shown") }
            XCTAssertTrue(message.contains("locked"), message)

            try holder.commit("INSERT INTO item(name) VALUES ('after the lock')")
            XCTAssertTrue(waitUntil("live again, on the commit") {
                loop.state.table?.isLive == true
                    && loop.state.table?.window?.rows.last?[1] == "after the lock".databaseValue
            })
            XCTAssertNil(loop.state.message)
        }
    }

    func testAHotJournalKeepsTheViewUntilTheNextWriterRollsItBack() throws {
        let path = try makeFile()
        let database = try SQLiteDataSource.open(path: path)
        try MainActor.assumeIsolated {
            let loop = try makeLoop(database, opening: .table("item"))
            defer { loop.stop() }
            XCTAssertTrue(waitUntil("the first window") { loop.state.table?.isLive == true })

            try makeHotJournal(path)
            loop.send(.key(.end))
            XCTAssertTrue(waitUntil("two failures") { failures.windowFailures >= 2 })
            XCTAssertNotNil(loop.state.table, "the view stays")
            XCTAssertEqual(loop.state.message, .error(SourceError.needsRecovery(path: path).description))

            // The next writer rolls the journal back, and commits.
            try ForeignFile.sqlite3(path, "INSERT INTO item(name) VALUES ('after the rollback')")
            XCTAssertTrue(waitUntil("live again") {
                loop.state.table?.isLive == true
                    && loop.state.table?.window?.rows.last?[1] == "after the rollback".databaseValue
            })
            XCTAssertEqual(try ForeignFile.sqlite3(path, "SELECT COUNT(*) FROM item"), "21\n")
        }
    }

    func testAKeyReadsAgainAfterAFailure() throws {
        let driver = try ViewerDriver(path: try makeFile(), table: "item")
        try driver.send(.windowFailed("the database is locked", .transient))
        XCTAssertEqual(driver.state.table?.failure, "the database is locked")
        XCTAssertEqual(driver.state.table?.isLive, false)
        // A key that reads nothing by itself: the source is read again.
        let effects = try driver.send(.key(.character("H")))
        XCTAssertTrue(effects.contains(.open(.table("item"), sortColumn: nil, descending: false)), "\(effects)")
        XCTAssertEqual(driver.state.table?.isLive, true)
        XCTAssertNil(driver.state.table?.failure)
        XCTAssertNil(driver.state.message)
    }

    func testARollbackJournalWriterIsNotHeldByTheIdleViewer() throws {
        let path = try makeFile()
        let database = try SQLiteDataSource.open(path: path)
        try MainActor.assumeIsolated {
            let loop = try makeLoop(database, opening: .table("item"))
            defer { loop.stop() }
            XCTAssertTrue(waitUntil("idle") {
                loop.state.table?.isLive == true && loop.state.table?.rowCount == 20
                    && loop.state.table?.isCounting == false
            })
            // A writer that keeps its exclusive lock to its end.
            try ForeignFile.sqlite3(path, "PRAGMA locking_mode = EXCLUSIVE; INSERT INTO item(name) VALUES ('exclusive')")
            XCTAssertTrue(waitUntil("its commit shown") { loop.state.table?.rowCount == 21 })
        }
    }

    func testACountThatFailsOnACorruptPageSaysWhy() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("corrupt.sqlite").path
        try ForeignFile.sqlite3(path, """
            PRAGMA page_size = 4096;
            CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000)
            INSERT INTO item(name) SELECT printf('item %05d %s', i, hex(zeroblob(40))) FROM n;
            """)
        // A leaf page near the end of the table, zeroed: the first rows
        // read well, the count does not.
        let pages = try XCTUnwrap(Int(try ForeignFile.sqlite3(path, "PRAGMA page_count").trimmingCharacters(in: .whitespacesAndNewlines)))
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: UInt64((pages - 5) * 4096))
        handle.write(Data(count: 4096))
        try handle.close()
        let database = try SQLiteDataSource.open(path: path)
        try MainActor.assumeIsolated {
            let loop = try makeLoop(database, opening: .table("item"))
            defer { loop.stop() }
            XCTAssertTrue(waitUntil("the window, and the count's failure") {
                loop.state.table?.countFailure != nil && loop.state.table?.window != nil
            })
            guard case let .error(message)? = loop.state.message else { return XCTFail("no error shown") }
            XCTAssertTrue(message.contains("malformed"), message)
            XCTAssertTrue(viewerRender(loop.state).text.contains("? · live"))
        }
    }

    func testAFailedListOfTablesIsTriedAgain() throws {
        let path = try makeFile()
        let database = try SQLiteDataSource.open(path: path)
        try MainActor.assumeIsolated {
            let holder = try LockHolder(path: path)
            defer { holder.stop() }
            let loop = try makeLoop(database, opening: nil)
            defer { loop.stop() }
            XCTAssertTrue(waitUntil("the failure") { loop.state.picker.failure != nil })
            try holder.commit("CREATE TABLE added(x)")
            XCTAssertTrue(waitUntil("listed") {
                loop.state.picker.entries?.map(\.name) == ["added", "forever", "item"]
            })
            XCTAssertNil(loop.state.message)
        }
    }

    func testACountThatFailsSaysWhy() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("json.sqlite").path
        try ForeignFile.sqlite3(path, """
            CREATE TABLE doc(id INTEGER PRIMARY KEY, data TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100)
            INSERT INTO doc(data) SELECT '{"a": 1}' FROM n;
            INSERT INTO doc(data) VALUES ('not json');
            """)
        let database = try SQLiteDataSource.open(path: path)
        try MainActor.assumeIsolated {
            let loop = try makeLoop(database, opening: .table("doc"))
            defer { loop.stop() }
            XCTAssertTrue(waitUntil("the first count") { loop.state.table?.rowCount == 101 })
            loop.send(contentsOf: [.key(.character("f"))]
                + "json_extract(data, '$.a') = 1".map { .key(.character($0)) } + [.key(.enter)])
            XCTAssertTrue(waitUntil("the window, and the count's failure") {
                loop.state.table?.countFailure != nil && loop.state.table?.window != nil
            })
            XCTAssertEqual(loop.state.table?.window?.rows.count, 18, "the window reads no bad row")
            guard case let .error(message)? = loop.state.message else { return XCTFail("no error shown") }
            XCTAssertTrue(message.contains("malformed JSON"), message)
            XCTAssertTrue(viewerRender(loop.state).text.contains("? · live"))
        }
    }
}

/// Another process (Python) that holds the file locked (`BEGIN
/// EXCLUSIVE`) until it commits.
private final class LockHolder {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()

    init(path: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", """
            import sqlite3, sys
            con = sqlite3.connect(sys.argv[1], isolation_level=None)
            con.execute('BEGIN EXCLUSIVE')
            print('locked', flush=True)
            sql = sys.stdin.readline()
            if sql.strip():
                con.execute(sql)
            con.execute('COMMIT')
            print('committed', flush=True)
            """, path]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        try expect("locked")
    }

    /// Runs `sql` in the lock's transaction, and commits.
    func commit(_ sql: String) throws {
        input.fileHandleForWriting.write(Data((sql + "\n").utf8))
        try expect("committed")
    }

    func stop() {
        if process.isRunning {
            process.terminate()
        }
        process.waitUntilExit()
    }

    private func expect(_ line: String) throws {
        var text = ""
        while !text.hasSuffix("\n") {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            guard !byte.isEmpty else { throw ForeignFile.ToolError(description: "python3 ended before \(line)") }
            text += String(decoding: byte, as: UTF8.self)
        }
        guard text == line + "\n" else { throw ForeignFile.ToolError(description: "python3 said \(text)") }
    }
}

/// Leaves a hot journal beside the rollback-journal file at `path`: a
/// Python writer changes many pages in one transaction (more than its
/// cache holds, so that the file itself is written) and dies before it
/// commits.
func makeHotJournal(_ path: String) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments = ["-c", """
        import os, sqlite3, sys
        con = sqlite3.connect(sys.argv[1], isolation_level=None)
        con.execute('PRAGMA cache_size = 10')
        con.execute('BEGIN')
        con.execute('CREATE TABLE IF NOT EXISTS filler(x)')
        con.execute("INSERT INTO filler SELECT randomblob(1000) FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500) SELECT i FROM n)")
        os._exit(0)
        """, path]
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0, (ForeignFile.size(path + "-journal") ?? 0) > 0 else {
        throw ForeignFile.ToolError(description: "no hot journal was left")
    }
}

/// Counts the window failures that the loop handles.
final class FailureLog {
    var windowFailures = 0
}

/// The viewer's program, counting its window failures.
@MainActor
private struct LoggingProgram: AppProgram {
    let base: ViewerProgram
    let failures: FailureLog

    func start() -> [AppCommand<ViewerMessage, ViewerSlot>] { base.start() }

    func update(_ state: inout ViewerState, _ message: ViewerMessage) -> [ViewerEffect] {
        if case .windowFailed = message {
            failures.windowFailures += 1
        }
        return base.update(&state, message)
    }

    func render(_ state: ViewerState) -> Screen { base.render(state) }

    func command(for effect: ViewerEffect) -> AppCommand<ViewerMessage, ViewerSlot> { base.command(for: effect) }
}

/// A host that draws nothing.
@MainActor
private final class SilentHost: AppHost {
    func draw(_ screen: Screen) { }
    func suspend() { }
    func quit() { }
}
