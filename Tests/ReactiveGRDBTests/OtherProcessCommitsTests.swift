import Foundation
import GRDB
import OpenCombine
import OpenCombineDispatch
@testable import ReactiveGRDB
import SQLiteCommandLine
import XCTest

/// `includingOtherProcesses(_:)`: the publishers see the commits of another
/// process, the `sqlite3` command, which keeps its connection open.
final class OtherProcessCommitsTests: XCTestCase {
    private let names = ValueObservation
        .trackingConstantRegion { db in try String.fetchAll(db, sql: "SELECT name FROM player ORDER BY id") }
        .removeDuplicates()

    override func tearDown() {
        CommitWatch.makeFileChangeSource = { directory, names, queue, onChange in
            try FileChangeSource(directory: directory, names: names, queue: queue, onChange: onChange)
        }
        super.tearDown()
    }

    // MARK: - startImmediately: false

    func testStartImmediatelyFalsePublishesOnlyTheChangesOfAnotherProcess() throws {
        for connection in ConnectionKind.allCases {
            for access in Access.allCases {
                let context = "\(connection), \(access)"
                try RecorderScope.run {
                    try withDatabase(connection, access, .wal) { reader, other in
                        // Subscribed on the main queue: the initial count is
                        // fetched synchronously, and not published.
                        let counts = Table("player").all().rx
                            .observeCount(in: reader, startImmediately: false)
                            .includingOtherProcesses()
                            .record()
                        let names = names.rx
                            .observe(in: reader, startImmediately: false)
                            .includingOtherProcesses()
                            .record()
                        // With a scheduler, the initial count is fetched
                        // synchronously too: the next commit is a change.
                        let scheduledCounts = Table("player").all().rx
                            .observeCount(in: reader, startImmediately: false, observeOn: DispatchQueue(label: "counts").ocombine)
                            .includingOtherProcesses()
                            .record()
                        XCTAssertEqual(counts.values, [], context)
                        XCTAssertEqual(names.values, [], context)

                        try other.execute("INSERT INTO player(name) VALUES ('Arthur')")
                        wait(for: counts, until: { $0.values.last == 1 })
                        wait(for: scheduledCounts, until: { $0.values.last == 1 })
                        wait(for: names, until: { $0.values.last == ["Arthur"] })
                        // Does not change the count.
                        try other.execute("UPDATE player SET name = 'Craig'")
                        wait(for: names, until: { $0.values.last == ["Craig"] })
                        try other.execute("INSERT INTO player(name) VALUES ('Barbara')")
                        XCTAssertEqual(wait(for: counts, until: { $0.values.last == 2 }).values, [1, 2], context)
                        XCTAssertEqual(wait(for: scheduledCounts, until: { $0.values.last == 2 }).values, [1, 2], context)
                        XCTAssertEqual(
                            wait(for: names, until: { $0.values.last == ["Craig", "Barbara"] }).values,
                            [["Arthur"], ["Craig"], ["Craig", "Barbara"]], context)
                    }
                }
            }
        }
    }

    // MARK: - The matrix

    func testCommitsOfAnotherProcessAreObserved() throws {
        for connection in ConnectionKind.allCases {
            for access in Access.allCases {
                for journal in Journal.allCases {
                    // A writable DatabasePool turns a file to WAL when it
                    // opens it (GRDB does): that case is the WAL one.
                    if connection == .pool && access == .writable && journal == .delete { continue }
                    let spelling: Spelling = (connection == .queue) == (access == .writable) ? .rx : .grdb
                    let context = "\(connection), \(access), \(journal), \(spelling)"
                    try RecorderScope.run {
                        try withDatabase(connection, access, journal) { reader, other in
                            let recorder = spelling.observe(names, in: reader).includingOtherProcesses().record()
                            wait(for: recorder, valueCount: 1)
                            for (sql, state) in [
                                ("INSERT INTO player(name) VALUES ('Arthur')", ["Arthur"]),
                                ("INSERT INTO player(name) VALUES ('Barbara')", ["Arthur", "Barbara"]),
                                ("UPDATE player SET name = 'Craig' WHERE name = 'Arthur'", ["Craig", "Barbara"]),
                                ("DELETE FROM player WHERE name = 'Barbara'", ["Craig"]),
                            ] {
                                try other.execute(sql)
                                // Waits for the state itself: a plain
                                // observation may publish a value twice (a
                                // pool's first one, GRDB says), which must
                                // not pass for the next state.
                                wait(for: recorder, until: { $0.values.last == state })
                            }
                            // Every state, in order; a plain observation
                            // (no removeDuplicates) may repeat one.
                            XCTAssertEqual(
                                recorder.values.reduce(into: [[String]]()) { states, value in
                                    if states.last != value { states.append(value) }
                                },
                                [[], ["Arthur"], ["Arthur", "Barbara"], ["Craig", "Barbara"], ["Craig"]],
                                context)
                            XCTAssertNil(recorder.completion, context)
                            // The journal mode is the file's own.
                            XCTAssertEqual(try other.execute("PRAGMA journal_mode;"), [journal.rawValue], context)
                        }
                    }
                }
            }
        }
    }

    func testTruncateAndPersistJournalsAreObserved() throws {
        // Rollback journals that are not deleted at commit: truncated, or
        // their header zeroed.
        for journal in ["truncate", "persist"] {
            try RecorderScope.run {
                try withDatabase(.queue, .readOnly, .delete) { reader, other in
                    try other.execute("PRAGMA journal_mode = \(journal);")
                    let recorder = names.publisher(in: reader).includingOtherProcesses().record()
                    wait(for: recorder, valueCount: 1)
                    try other.execute("INSERT INTO player(name) VALUES ('Arthur')")
                    wait(for: recorder, valueCount: 2)
                    try other.execute("INSERT INTO player(name) VALUES ('Barbara')")
                    wait(for: recorder, valueCount: 3)
                    XCTAssertEqual(recorder.values, [[], ["Arthur"], ["Arthur", "Barbara"]], journal)
                    XCTAssertEqual(try other.execute("PRAGMA journal_mode;"), [journal], journal)
                }
            }
        }
    }

    func testARollbackJournalCommitIsNotCheckedAgainAfterItsWritesAndAWALCommitIs() throws {
        // A rollback-journal commit is seen by the check that follows its
        // last write: none in the next few hundred milliseconds. A WAL
        // commit becomes visible after its last write: the checks go on
        // (at 100 and 200 ms after it, among others).
        for journal in Journal.allCases {
            try RecorderScope.run {
                try withDatabase(.queue, .readOnly, journal) { reader, other in
                    let recorder = names.publisher(in: reader).includingOtherProcesses().record()
                    wait(for: recorder, valueCount: 1)
                    settle()
                    var laterChecks: [Int] = []
                    for name in ["Arthur", "Barbara", "Craig"] {
                        try other.execute("INSERT INTO player(name) VALUES ('\(name)')")
                        wait(for: recorder, until: { $0.values.last?.last == name })
                        // The reports of the commit's last writes are read.
                        RunLoop.main.run(until: Date(timeIntervalSinceNow: 0.05))
                        let before = CommitWatch.checkCount(of: reader)
                        settle()
                        laterChecks.append(CommitWatch.checkCount(of: reader) - before)
                    }
                    XCTAssertEqual(recorder.values, [[], ["Arthur"], ["Arthur", "Barbara"], ["Arthur", "Barbara", "Craig"]])
                    switch journal {
                    case .delete:
                        XCTAssertEqual(laterChecks, [0, 0, 0], "\(journal)")
                    case .wal:
                        XCTAssertGreaterThanOrEqual(laterChecks.min() ?? 0, 2, "\(journal): \(laterChecks)")
                    }
                }
            }
        }
    }

    func testWritesThatLeaveTheChangeCounterAskNoDataVersionAndACommitDoes() throws {
        // A rollback-journal file: the reports of writes that commit nothing
        // (a journal made and deleted) are checked by the header's change
        // counter alone, without a read transaction; a commit still is seen.
        try RecorderScope.run {
            try withDatabase(.queue, .readOnly, .delete) { reader, other in
                let recorder = names.publisher(in: reader).includingOtherProcesses().record()
                wait(for: recorder, valueCount: 1)
                settle()
                let journal = URL(fileURLWithPath: reader.path + "-journal")
                let checks = CommitWatch.checkCount(of: reader)
                let spared = CommitWatch.sparedCheckCount(of: reader)
                for _ in 0..<3 {
                    try Data().write(to: journal)
                    try FileManager.default.removeItem(at: journal)
                }
                let deadline = Date(timeIntervalSinceNow: 10)
                while CommitWatch.sparedCheckCount(of: reader) == spared, Date() < deadline {
                    RunLoop.main.run(until: Date(timeIntervalSinceNow: 0.01))
                }
                XCTAssertGreaterThan(CommitWatch.sparedCheckCount(of: reader), spared)
                XCTAssertEqual(CommitWatch.checkCount(of: reader), checks)

                try other.execute("INSERT INTO player(name) VALUES ('Arthur')")
                wait(for: recorder, until: { $0.values.last == ["Arthur"] })
                XCTAssertGreaterThan(CommitWatch.checkCount(of: reader), checks)
            }
        }
    }

    func testImmediateSchedulerPublishesFreshValuesOnTheMainThread() throws {
        try RecorderScope.run {
            try withDatabase(.pool, .readOnly, .wal) { reader, other in
                let threads = Synchronized<[Bool]>([])
                let recorder = names.publisher(in: reader, scheduling: .immediate)
                    .includingOtherProcesses()
                    .record(onEvent: { event in
                        if case .value = event {
                            threads.update { $0.append(Thread.isMainThread) }
                        }
                    })
                // The initial value, synchronously.
                XCTAssertEqual(recorder.values, [[]])
                try other.execute("INSERT INTO player(name) VALUES ('Arthur')")
                wait(for: recorder, until: { $0.values.last == ["Arthur"] })
                XCTAssertEqual(Set(threads.value), [true])
            }
        }
    }

    func testWithoutIncludingOtherProcessesTheirCommitsAreNotSeen() throws {
        // What `includingOtherProcesses` is for: GRDB alone does not see
        // the commits of another process.
        try RecorderScope.run {
            try withDatabase(.pool, .writable, .wal) { reader, other in
                let recorder = names.publisher(in: reader).record()
                wait(for: recorder, valueCount: 1)
                // A pool's observation fetches its first value a second time,
                // on the writer: before the insert, or it would see it.
                RunLoop.main.run(until: Date(timeIntervalSinceNow: 0.3))
                let before = recorder.values.count
                try other.execute("INSERT INTO player(name) VALUES ('Arthur')")
                RunLoop.main.run(until: Date(timeIntervalSinceNow: 0.3))
                XCTAssertEqual(recorder.values.count, before)
                XCTAssertEqual(recorder.values.last, [])
            }
        }
    }

    // MARK: - The next commit

    func testNextOtherProcessCommitEmitsOnceAfterTheNextCommit() throws {
        try RecorderScope.run {
            try withDatabase(.queue, .readOnly, .delete) { reader, other in
                let recorder = reader.nextOtherProcessCommit().record()
                try other.execute("INSERT INTO player(name) VALUES ('Arthur')")
                waitForCompletion(of: recorder)
                XCTAssertEqual(recorder.values.count, 1)
                if case .failure? = recorder.completion { XCTFail("failed") }
            }
        }
    }

    func testNextOtherProcessCommitReleasesItsWatchOnItsCommitAndOnCancel() throws {
        try RecorderScope.run {
            try withDatabase(.queue, .readOnly, .delete) { reader, other in
                // Polled, as on a remote file system: a watch left running
                // would cost CPU ten times a second.
                let commits = OtherProcessCommits.fileEvents(checkingEvery: 0.1)
                let cancelled = reader.nextOtherProcessCommit(commits)
                    .sink(receiveCompletion: { _ in }, receiveValue: { })
                XCTAssertTrue(CommitWatch.isWatching(reader))
                cancelled.cancel()
                XCTAssertTrue(releases(reader), "cancelled")

                let recorder = reader.nextOtherProcessCommit(commits).record()
                XCTAssertTrue(CommitWatch.isWatching(reader))
                try other.execute("INSERT INTO player(name) VALUES ('Arthur')")
                waitForCompletion(of: recorder)
                XCTAssertEqual(recorder.values.count, 1)
                XCTAssertTrue(releases(reader), "after its commit")
            }
        }
    }

    /// Whether the watch of `reader` stops within 10 s.
    private func releases(_ reader: any DatabaseReader) -> Bool {
        let deadline = Date(timeIntervalSinceNow: 10)
        while CommitWatch.isWatching(reader) {
            guard Date() < deadline else { return false }
            RunLoop.main.run(until: Date(timeIntervalSinceNow: 0.005))
        }
        return true
    }

    // MARK: - Own writes

    func testOwnWritesCauseNoOtherFetch() throws {
        for connection in ConnectionKind.allCases {
            try RecorderScope.run {
                try withDatabase(connection, .writable, .wal) { reader, other in
                    let writer = try XCTUnwrap(reader as? any DatabaseWriter)
                    let fetches = Synchronized(0)
                    let observation = names.handleEvents(willFetch: { fetches.update { $0 += 1 } })
                    let recorder = observation.publisher(in: reader).includingOtherProcesses().record()
                    wait(for: recorder, valueCount: 1)
                    settle()
                    for (index, name) in ["Arthur", "Barbara", "Craig"].enumerated() {
                        let before = fetches.value
                        try writer.write { db in try db.execute(sql: "INSERT INTO player(name) VALUES (?)", arguments: [name]) }
                        wait(for: recorder, valueCount: index + 2)
                        // The checks after the write have time to run.
                        settle()
                        XCTAssertEqual(fetches.value - before, 1, "\(connection), own write \(name)")
                    }
                    // Another process's commit still makes a fresh value.
                    try other.execute("INSERT INTO player(name) VALUES ('Zoé')")
                    wait(for: recorder, until: { $0.values.last == ["Arthur", "Barbara", "Craig", "Zoé"] })
                }
            }
        }
    }

    func testCommitOfAnotherProcessIsObservedWhileTheWriterIsBusy() throws {
        // A write of the app may wait seconds for the lock of another
        // process: the commits of other processes must not wait for it.
        try RecorderScope.run {
            try withDatabase(.pool, .writable, .wal) { reader, other in
                let writer = try XCTUnwrap(reader as? any DatabaseWriter)
                let recorder = names.publisher(in: reader).includingOtherProcesses().record()
                wait(for: recorder, valueCount: 1)
                // An own write first, so that the next change is checked
                // against it.
                try writer.write { db in try db.execute(sql: "INSERT INTO player(name) VALUES ('Arthur')") }
                wait(for: recorder, valueCount: 2)
                let release = DispatchSemaphore(value: 0)
                writer.asyncWriteWithoutTransaction { _ in release.wait() }
                defer { release.signal() }
                try other.execute("INSERT INTO player(name) VALUES ('Barbara')")
                wait(for: recorder, timeout: 2, until: { $0.values.last == ["Arthur", "Barbara"] })
            }
        }
    }

    func testCommitOfAnotherProcessIsObservedWhileAnOwnWriteWaitsForTheLock() throws {
        // Issue 7, bug 5: the app's write waits out its busy timeout while
        // another process keeps the lock between its commits. Those commits
        // show meanwhile.
        try RecorderScope.run {
            // The app's write waits in its busy handler until the test lets
            // it go: without it, a retry that falls between the other
            // process's COMMIT and its next BEGIN (a loaded machine widens
            // that gap) takes the lock, and the test sees no wait.
            let released = DispatchSemaphore(value: 0)
            var configuration = Configuration()
            configuration.busyMode = .callback { _ in
                _ = released.wait(timeout: .now() + 20)
                released.signal()
                return true
            }
            try withDatabase(.pool, .writable, .wal, configuration: configuration) { reader, other in
                let writer = try XCTUnwrap(reader as? any DatabaseWriter)
                let recorder = names.publisher(in: reader).includingOtherProcesses().record()
                wait(for: recorder, valueCount: 1)
                try other.execute("BEGIN IMMEDIATE; INSERT INTO player(name) VALUES ('Arthur');")
                let write = writer.rx.write { db in try db.execute(sql: "INSERT INTO player(name) VALUES ('Barbara')") }.record()
                // Commits, and takes the lock again at once: the app's write
                // still waits.
                try other.execute("COMMIT; BEGIN IMMEDIATE; INSERT INTO player(name) VALUES ('Craig');")
                wait(for: recorder, timeout: 2, until: { $0.values.last == ["Arthur"] })
                XCTAssertFalse(write.recording.value.isComplete, "the own write waits")
                released.signal()
                try other.execute("COMMIT;")
                waitForCompletion(of: write)
                wait(for: recorder, until: { $0.values.last == ["Arthur", "Craig", "Barbara"] })
            }
        }
    }

    // MARK: - Other publishers

    func testRegionObservationEmitsAfterCommitsOfAnotherProcess() throws {
        for access in Access.allCases {
            for spelling in Spelling.allCases {
                try RecorderScope.run {
                    try withDatabase(.queue, access, .delete) { reader, other in
                        let writer = try XCTUnwrap(reader as? any DatabaseWriter)
                        let recorder = spelling
                            .changes(DatabaseRegionObservation(tracking: Table("player")), in: writer)
                            .includingOtherProcesses()
                            .map { db in (try? Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player")) ?? -1 }
                            .record()
                        try other.execute("INSERT INTO player(name) VALUES ('Arthur')")
                        wait(for: recorder, valueCount: 1)
                        try other.execute("INSERT INTO player(name) VALUES ('Barbara')")
                        wait(for: recorder, until: { $0.values.last == 2 })
                        XCTAssertEqual(recorder.values, [1, 2], "\(access), \(spelling)")
                    }
                }
            }
        }
    }

    func testRequestConveniencesSeeCommitsOfAnotherProcess() throws {
        try RecorderScope.run {
            try withDatabase(.queue, .readOnly, .delete) { reader, other in
                let count = Table("player").all().rx.observeCount(in: reader).includingOtherProcesses().record()
                let first = SQLRequest<String>(sql: "SELECT name FROM player ORDER BY id DESC")
                    .rx.observeFirst(in: reader).includingOtherProcesses().record()
                wait(for: count, valueCount: 1)
                wait(for: first, valueCount: 1)
                try other.execute("INSERT INTO player(name) VALUES ('Arthur')")
                wait(for: count, until: { $0.values == [0, 1] })
                wait(for: first, until: { $0.values == [nil, "Arthur"] })
            }
        }
    }

    func testSharedObservationSeesCommitsOfAnotherProcess() throws {
        for access in Access.allCases {
            try RecorderScope.run {
                try withDatabase(.pool, access, .wal) { reader, other in
                    let shared = names.shared(in: reader)
                    let recorder = shared.publisher(includingOtherProcessesIn: reader).record()
                    wait(for: recorder, valueCount: 1)
                    try other.execute("INSERT INTO player(name) VALUES ('Arthur')")
                    wait(for: recorder, until: { $0.values.last == ["Arthur"] })
                }
            }
        }
    }

    // MARK: - No change, no value

    /// A publisher of player names, and a count of the selects of the player
    /// table on the connections of the reader: the fetches of the
    /// observation, that the tests wait for.
    private typealias NoChangeCase = (
        name: String,
        subscribe: (any DatabaseReader) -> Recorder<[String], Error>)

    /// The request conveniences and the request observations filter out
    /// identical consecutive values: a commit of another process to another
    /// table publishes nothing, although the observation fetches again.
    func testCommitOfAnotherProcessToAnotherTablePublishesNoDuplicate() throws {
        struct Name: Decodable, FetchableRecord, TableRecord, Sendable {
            static let databaseTableName = "player"
            var name: String
        }
        let names = Name.select(Column("name")).order(Column("id"))
        let namesSQL = SQLRequest<String>(sql: "SELECT name FROM player ORDER BY id")
        func strings<P: Publisher>(_ publisher: P, _ transform: @escaping (P.Output) -> [String]) -> Recorder<[String], Error>
        where P.Failure == Error {
            publisher.map(transform).record()
        }
        let cases: [NoChangeCase] = [
            ("rx.observeAll, records", { strings(names.rx.observeAll(in: $0).includingOtherProcesses(), { $0.map(\.name) }) }),
            ("rx.observeFirst, records", { strings(names.rx.observeFirst(in: $0).includingOtherProcesses(), { $0.map { [$0.name] } ?? [] }) }),
            ("rx.observeAll, values", { strings(namesSQL.rx.observeAll(in: $0).includingOtherProcesses(), { $0 }) }),
            ("rx.observeFirst, values", { strings(namesSQL.rx.observeFirst(in: $0).includingOtherProcesses(), { $0.map { [$0] } ?? [] }) }),
            ("rx.observeCount", { strings(names.rx.observeCount(in: $0).includingOtherProcesses(), { ["\($0)"] }) }),
            ("observationForAll()", { strings(names.observationForAll().publisher(in: $0).includingOtherProcesses(), { $0.map(\.name) }) }),
            ("observationForFirst()", { strings(namesSQL.observationForFirst().publisher(in: $0).includingOtherProcesses(), { $0.map { [$0] } ?? [] }) }),
            ("observationForCount()", { strings(names.observationForCount().publisher(in: $0).includingOtherProcesses(), { ["\($0)"] }) }),
            ("ValueObservation.combine", { reader in
                let observation = ValueObservation.combine(names.observationForCount(), namesSQL.observationForAll())
                return strings(observation.publisher(in: reader).includingOtherProcesses(), { ["\($0.0)"] + $0.1 })
            }),
            ("ValueObservation.removeDuplicates()", { strings(self.names.publisher(in: $0).includingOtherProcesses(), { $0 }) }),
            ("ValueObservation.removeDuplicates(), rx", { strings(self.names.rx.observe(in: $0).includingOtherProcesses(), { $0 }) }),
            ("ValueObservation.removeDuplicates(), rx observeOn:", {
                strings(self.names.rx.observe(in: $0, observeOn: DispatchQueue.main.ocombine).includingOtherProcesses(), { $0 })
            }),
            // The documented way for observations of values that are not
            // Equatable: OpenCombine's removeDuplicates(by:).
            ("removeDuplicates(by:), then OpenCombine's", { reader in
                let observation = ValueObservation
                    .tracking { db in try Name.fetchAll(db, names) }
                    .removeDuplicates(by: { $0.map(\.name) == $1.map(\.name) })
                return strings(
                    observation.publisher(in: reader).includingOtherProcesses()
                        .removeDuplicates(by: { $0.map(\.name) == $1.map(\.name) }),
                    { $0.map(\.name) })
            }),
        ]
        for connection in ConnectionKind.allCases {
            for access in Access.allCases {
                for (name, subscribe) in cases {
                    let context = "\(name), \(connection), \(access)"
                    let selects = Synchronized(0)
                    var configuration = Configuration()
                    configuration.prepareDatabase { db in
                        db.trace(options: .statement) { event in
                            if case let .statement(statement) = event, statement.sql.contains("FROM player") || statement.sql.contains("FROM \"player\"") {
                                selects.increment()
                            }
                        }
                    }
                    try RecorderScope.run {
                        try withDatabase(connection, access, .wal, configuration: configuration) { reader, other in
                            let recorder = subscribe(reader)
                            wait(for: recorder, valueCount: 1)
                            for _ in 0..<3 {
                                // The observation fetches again...
                                let before = selects.value
                                try other.execute("INSERT INTO team DEFAULT VALUES")
                                wait(for: selects, until: { $0 > before })
                            }
                            // ... and publishes nothing until the players change.
                            try other.execute("INSERT INTO player(name) VALUES ('Arthur')")
                            let recording = wait(for: recorder, valueCount: 2)
                            // The initial value has no player, the second has one.
                            XCTAssertEqual(recording.values.count, 2, "\(context): \(recording.values)")
                            XCTAssertFalse(recording.values.first?.contains { $0 == "Arthur" || $0 == "1" } ?? true, "\(context): \(recording.values)")
                            XCTAssertTrue(recording.values.last?.contains { $0 == "Arthur" || $0 == "1" } ?? false, "\(context): \(recording.values)")
                        }
                    }
                }
            }
        }
    }

    // MARK: - Bursts

    func testBurstOfCommitsEndsWithTheLastState() throws {
        for (connection, access, journal) in [(ConnectionKind.pool, Access.readOnly, Journal.wal), (.queue, .writable, .delete)] {
            try RecorderScope.run {
                try withDatabase(connection, access, journal) { reader, other in
                    let count = ValueObservation.trackingConstantRegion { db in
                        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player")!
                    }
                    let recorder = count.publisher(in: reader).includingOtherProcesses().record()
                    wait(for: recorder, valueCount: 1)
                    // Each statement is its own transaction: 10,000 commits.
                    try other.execute("PRAGMA synchronous = OFF;")
                    let inserts = String(repeating: "INSERT INTO player(name) VALUES ('Arthur');\n", count: 10_000)
                    try other.execute(inserts, timeout: 120)
                    let recording = wait(for: recorder, timeout: 20, until: { $0.values.last == 10_000 || $0.isComplete })
                    XCTAssertNil(recording.completion, "\(journal)")
                    XCTAssertEqual(recording.values.last, 10_000, "\(journal)")
                    XCTAssertEqual(recording.values, recording.values.sorted(), "\(journal): values in commit order")
                    XCTAssertLessThan(recording.values.count, 10_000, "\(journal): coalesced")
                }
            }
        }
    }

    func testRollbackJournalWriterCommittingBackToBackDoesNotStarveTheReads() throws {
        // Each commit syncs the file while it holds the lock (the default
        // `synchronous = FULL`): the file is locked most of the time, and
        // free for a moment between commits. Chunks of 50 commits, for 2 s
        // at least.
        for access in Access.allCases {
            try RecorderScope.run {
                try withDatabase(.queue, access, .delete) { reader, other in
                    let recorder = ValueObservation
                        .trackingConstantRegion { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player")! }
                        // Off the main queue, which waits for the writer.
                        .publisher(in: reader, scheduling: .async(onQueue: DispatchQueue(label: "counts")))
                        .includingOtherProcesses()
                        .map { count in (count: count, time: DispatchTime.now()) }
                        .record()
                    wait(for: recorder, valueCount: 1)
                    let start = DispatchTime.now()
                    var commits = 0
                    repeat {
                        try other.execute(String(repeating: "INSERT INTO player(name) VALUES ('Arthur');\n", count: 50), timeout: 120)
                        commits += 50
                    } while DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds < 2_000_000_000
                    let end = DispatchTime.now()
                    let recording = wait(for: recorder, timeout: 20, until: { $0.values.last?.count == commits || $0.isComplete })
                    XCTAssertNil(recording.completion, "\(access)")
                    XCTAssertEqual(recording.values.last?.count, commits, "\(access)")
                    let counts = recording.values.map(\.count)
                    XCTAssertEqual(counts, counts.sorted(), "\(access): values in commit order")
                    // Values keep coming while the writer commits, one per
                    // 0.3 s at least: reads that backed off up to 50 ms
                    // found the file locked again and again, and made one
                    // value a second or so.
                    let burst = Double(end.uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
                    let during = Set(recording.values.filter { $0.time.uptimeNanoseconds <= end.uptimeNanoseconds }.map(\.count)).count - 1
                    XCTAssertGreaterThanOrEqual(Double(during), burst / 0.3, "\(access): \(during) values in \(burst) s")
                }
            }
        }
    }

    // MARK: - Pacing

    func testPacedBurstIsCoalescedWithPausesAndEndsWithTheLastCommit() throws {
        let pause = 0.3
        // Reads wait for the writer's lock, retrying often, so that the first
        // one comes early in the burst, not after it.
        var configuration = Configuration()
        configuration.busyMode = .callback { tries in
            usleep(200)
            return tries < 100_000
        }
        for (connection, access, journal) in [(ConnectionKind.queue, Access.readOnly, Journal.delete), (.pool, .writable, .wal)] {
            try RecorderScope.run {
                try withDatabase(connection, access, journal, configuration: configuration) { reader, other in
                    let recorder = ValueObservation
                        .trackingConstantRegion { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player")! }
                        .publisher(in: reader)
                        .includingOtherProcesses(.fileEvents.paced(.dutyCycle(0.5, minimumPause: pause)))
                        .map { count in (count: count, time: DispatchTime.now()) }
                        .record()
                    wait(for: recorder, valueCount: 1)
                    // Each statement is its own transaction: 2,000 commits.
                    try other.execute("PRAGMA synchronous = OFF;")
                    try other.execute(String(repeating: "INSERT INTO player(name) VALUES ('Arthur');\n", count: 2_000), timeout: 120)
                    let recording = wait(for: recorder, timeout: 20, until: { $0.values.last?.count == 2_000 || $0.isComplete })
                    let context = "\(connection), \(access), \(journal)"
                    XCTAssertNil(recording.completion, context)
                    // The last commit is read: after its pause, if it came
                    // during one.
                    XCTAssertEqual(recording.values.last?.count, 2_000, context)
                    let counts = recording.values.map(\.count)
                    XCTAssertEqual(counts, counts.sorted(), "\(context): values in commit order")
                    // A pool may publish a read's value twice, the second
                    // fetched on the writer, and fresher: only the queue's
                    // values are one per read.
                    guard connection == .queue else { return }
                    // After the first fresh value, each waits for the pause
                    // after the read before it: a few values, not one per
                    // commit.
                    var fresh: [(count: Int, time: DispatchTime)] = []
                    for value in recording.values.dropFirst() where value.count != fresh.last?.count {
                        fresh.append(value)
                    }
                    let gaps = zip(fresh, fresh.dropFirst()).map { Double($1.time.uptimeNanoseconds - $0.time.uptimeNanoseconds) / 1e9 }
                    XCTAssertFalse(gaps.isEmpty, "\(context): more than one read during the burst")
                    XCTAssertTrue(gaps.allSatisfy { $0 >= pause * 0.95 }, "\(context): gaps \(gaps)")
                }
            }
        }
    }

    func testACommitDuringTheFirstFetchIsReadAfterItsValueNotInsteadOfIt() throws {
        try RecorderScope.run {
            try withDatabase(.queue, .readOnly, .wal) { reader, other in
                // The first fetch reads its snapshot, then waits: a slow query.
                let release = DispatchSemaphore(value: 0)
                let fetches = Synchronized(0)
                let recorder = ValueObservation
                    .trackingConstantRegion { db -> [String] in
                        let names = try String.fetchAll(db, sql: "SELECT name FROM player ORDER BY id")
                        fetches.increment()
                        if fetches.value == 1 { release.wait() }
                        return names
                    }
                    .publisher(in: reader)
                    .includingOtherProcesses()
                    .record()
                // The first fetch has read its snapshot before the commits
                // (else its value holds them, which is right too).
                let deadline = Date(timeIntervalSinceNow: 10)
                while fetches.value == 0, Date() < deadline { usleep(1000) }
                // The watch tells each commit to all its listeners before it
                // checks the next one: once the second is seen, the first
                // was told to the observation.
                for name in ["Arthur", "Barbara"] {
                    let seen = reader.nextOtherProcessCommit().record()
                    try other.execute("INSERT INTO player(name) VALUES ('\(name)')")
                    wait(for: seen, valueCount: 1)
                }
                release.signal()
                let recording = wait(for: recorder, until: { $0.values.last == ["Arthur", "Barbara"] })
                // The first value is published, not dropped by a restart
                // that fetched behind it; one value follows for both commits.
                XCTAssertEqual(recording.values, [[], ["Arthur", "Barbara"]])
                settle()
                // One read for both, which a loaded machine (CI) makes two
                // about once in ten runs: the cause is not found yet.
                XCTAssertLessThanOrEqual(fetches.value, 3)
                XCTAssertEqual(recording.values.count, 2)
            }
        }
    }

    func testPacedCommitAfterAQuietSpellIsReadAtOnce() throws {
        let pause = 1.0
        try RecorderScope.run {
            try withDatabase(.queue, .readOnly, .delete) { reader, other in
                let recorder = names.publisher(in: reader)
                    .includingOtherProcesses(.fileEvents.paced(.dutyCycle(0.5, minimumPause: pause)))
                    .map { names in (names: names, time: DispatchTime.now()) }
                    .record()
                wait(for: recorder, valueCount: 1)
                var latencies: [Double] = []
                for name in ["Arthur", "Barbara"] {
                    let committed = DispatchTime.now()
                    try other.execute("INSERT INTO player(name) VALUES ('\(name)')")
                    let value = try XCTUnwrap(wait(for: recorder, until: { $0.values.last?.names.last == name }).values.last)
                    latencies.append(Double(value.time.uptimeNanoseconds - committed.uptimeNanoseconds) / 1e9)
                    // A quiet spell: longer than the pause after the read.
                    RunLoop.main.run(until: Date(timeIntervalSinceNow: pause * 1.5))
                }
                // Neither waited for a pause: the second commit came after
                // the pause of the first one's read.
                XCTAssertTrue(latencies.allSatisfy { $0 < pause * 0.6 }, "latencies \(latencies)")
                XCTAssertEqual(recorder.values.map(\.names), [[], ["Arthur"], ["Arthur", "Barbara"]])
            }
        }
    }

    func testPacedCommitDuringThePauseIsReadWhenItEnds() throws {
        let pause = 1.0
        try RecorderScope.run {
            try withDatabase(.queue, .readOnly, .delete) { reader, other in
                let recorder = names.publisher(in: reader)
                    .includingOtherProcesses(.fileEvents.paced(.dutyCycle(0.5, minimumPause: pause)))
                    .map { names in (names: names, time: DispatchTime.now()) }
                    .record()
                wait(for: recorder, valueCount: 1)
                try other.execute("INSERT INTO player(name) VALUES ('Arthur')")
                let first = try XCTUnwrap(wait(for: recorder, valueCount: 2).values.last)
                // Within the pause after that read: it waits for its end.
                try other.execute("INSERT INTO player(name) VALUES ('Barbara')")
                let second = try XCTUnwrap(wait(for: recorder, until: { $0.values.last?.names.count == 2 }).values.last)
                let gap = Double(second.time.uptimeNanoseconds - first.time.uptimeNanoseconds) / 1e9
                XCTAssertGreaterThanOrEqual(gap, pause * 0.95)
                XCTAssertEqual(recorder.values.map(\.names), [[], ["Arthur"], ["Arthur", "Barbara"]])
            }
        }
    }

    // MARK: - Faults

    func testWriteLockHeldByAnotherProcessFailsOwnWriteAndTheWatchGoesOn() throws {
        try RecorderScope.run {
            var configuration = Configuration()
            configuration.busyMode = .timeout(0.3)
            try withDatabase(.pool, .writable, .wal, configuration: configuration) { reader, other in
                let writer = try XCTUnwrap(reader as? any DatabaseWriter)
                let recorder = names.publisher(in: reader).includingOtherProcesses().record()
                wait(for: recorder, valueCount: 1)
                // The other process holds the write lock.
                try other.execute("BEGIN IMMEDIATE; INSERT INTO player(name) VALUES ('Arthur');")
                let write = writer.rx.write { db in try db.execute(sql: "INSERT INTO player(name) VALUES ('Barbara')") }.record()
                let failure = waitForCompletion(of: write).failure as? DatabaseError
                XCTAssertEqual(failure?.resultCode, .SQLITE_BUSY)
                XCTAssertEqual(failure?.message, "database is locked")
                // The other process commits: its change shows.
                try other.execute("COMMIT;")
                wait(for: recorder, until: { $0.values.last == ["Arthur"] })
                XCTAssertNil(recorder.completion)
            }
        }
    }

    func testRefreshThatFindsTheFileLockedIsTriedAgain() throws {
        // In rollback mode, a fetch that comes while another process
        // commits finds the file locked, unless the connection waits for
        // locks: the fetches below fail that way three times.
        try RecorderScope.run {
            try withDatabase(.queue, .writable, .delete) { reader, other in
                let lockedFetches = Synchronized(0)
                let count = ValueObservation.trackingConstantRegion { db -> Int in
                    var isLocked = false
                    lockedFetches.update { count in
                        if count > 0 {
                            count -= 1
                            isLocked = true
                        }
                    }
                    if isLocked {
                        throw DatabaseError(resultCode: .SQLITE_BUSY, message: "database is locked")
                    }
                    return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player")!
                }
                let recorder = count.publisher(in: reader).includingOtherProcesses().record()
                wait(for: recorder, valueCount: 1)
                lockedFetches.update { $0 = 3 }
                try other.execute("INSERT INTO player(name) VALUES ('Arthur')")
                let recording = wait(for: recorder, until: { $0.values.count == 2 || $0.isComplete })
                XCTAssertEqual(recording.values, [0, 1])
                XCTAssertNil(recording.completion)
                XCTAssertEqual(lockedFetches.value, 0)
            }
        }
    }

    func testDeletedFileFailsThePublisher() throws {
        try RecorderScope.run {
            try withDatabase(.queue, .readOnly, .delete) { reader, other in
                // The error comes where the observation's errors come: on
                // the main queue by default.
                let completedOnMainThread = Synchronized<Bool?>(nil)
                let recorder = names.publisher(in: reader).includingOtherProcesses().record(onEvent: { event in
                    if case .completion = event {
                        completedOnMainThread.update { $0 = Thread.isMainThread }
                    }
                })
                wait(for: recorder, valueCount: 1)
                try FileManager.default.removeItem(atPath: reader.path)
                let recording = waitForCompletion(of: recorder)
                XCTAssertEqual(completedOnMainThread.value, true)
                XCTAssertEqual(
                    recording.failure as? DatabaseFileChangedError,
                    DatabaseFileChangedError(reason: .deleted, path: resolved(reader.path)))
            }
        }
    }

    func testFileReplacedByRenameFailsThePublisher() throws {
        try RecorderScope.run {
            try withDatabase(.pool, .writable, .wal) { reader, other in
                let recorder = names.publisher(in: reader).includingOtherProcesses().record()
                wait(for: recorder, valueCount: 1)
                // An "atomic save": a new file written aside, then renamed
                // over the database.
                let temporary = reader.path + ".tmp"
                try Data("not a database".utf8).write(to: URL(fileURLWithPath: temporary))
                XCTAssertEqual(rename(temporary, reader.path), 0)
                let recording = waitForCompletion(of: recorder)
                XCTAssertEqual(
                    recording.failure as? DatabaseFileChangedError,
                    DatabaseFileChangedError(reason: .replaced, path: resolved(reader.path)))
                XCTAssertEqual(recording.values, [[]])
                // The connection still reads the file it opened: a new
                // subscription fails too, rather than watch the new file.
                let next = waitForCompletion(of: names.publisher(in: reader).includingOtherProcesses().record())
                XCTAssertEqual(
                    next.failure as? DatabaseFileChangedError,
                    DatabaseFileChangedError(reason: .replaced, path: resolved(reader.path)))
                XCTAssertEqual(next.values, [])
            }
        }
    }

    func testDeletedDirectoryFailsThePublisher() throws {
        try RecorderScope.run {
            try withDatabase(.queue, .writable, .delete) { reader, other in
                let recorder = names.publisher(in: reader).includingOtherProcesses().record()
                wait(for: recorder, valueCount: 1)
                let directory = URL(fileURLWithPath: reader.path).deletingLastPathComponent()
                // Moved away, then deleted: the path of the file is gone.
                let moved = directory.deletingLastPathComponent().appendingPathComponent(UUID().uuidString)
                try FileManager.default.moveItem(at: directory, to: moved)
                defer { try? FileManager.default.removeItem(at: moved) }
                let recording = waitForCompletion(of: recorder)
                XCTAssertEqual(
                    recording.failure as? DatabaseFileChangedError,
                    DatabaseFileChangedError(reason: .directoryGone, path: resolved(reader.path)))
            }
        }
    }

    func testWithoutInotifyCommitsArePolledAndTheFallbackIsReported() throws {
        CommitWatch.makeFileChangeSource = { directory, _, _, _ in
            // What inotify_add_watch says when the limit of watches is reached.
            throw FileChangeSourceError(path: directory, code: ENOSPC)
        }
        try RecorderScope.run {
            try withDatabase(.queue, .readOnly, .wal) { reader, other in
                let reasons = Synchronized<[String]>([])
                let recorder = names.publisher(in: reader)
                    .includingOtherProcesses(.fileEvents(onPollingFallback: { reason in reasons.update { $0.append(reason) } }))
                    .record()
                wait(for: recorder, valueCount: 1)
                wait(for: reasons, until: { $0.count == 1 })
                XCTAssertEqual(reasons.value, [
                    "cannot watch \"\(resolved(URL(fileURLWithPath: reader.path).deletingLastPathComponent().path))\": "
                        + "the limit of inotify watches is reached (fs.inotify.max_user_watches); checking every 100 ms instead",
                ])
                try other.execute("INSERT INTO player(name) VALUES ('Arthur')")
                wait(for: recorder, until: { $0.values == [[], ["Arthur"]] })
            }
        }
    }

    func testPollingSeesCommitsWithoutFileEvents() throws {
        CommitWatch.makeFileChangeSource = { directory, _, _, _ in
            XCTFail("polling watches no file")
            throw FileChangeSourceError(path: directory, code: ENOSPC)
        }
        try RecorderScope.run {
            try withDatabase(.pool, .writable, .wal) { reader, other in
                let recorder = names.publisher(in: reader).includingOtherProcesses(.polling(every: 0.05)).record()
                wait(for: recorder, valueCount: 1)
                try other.execute("INSERT INTO player(name) VALUES ('Arthur')")
                wait(for: recorder, until: { $0.values.last == ["Arthur"] })
            }
        }
    }

    func testAlteredTableGivesAFreshValueAndDroppedTableAnError() throws {
        for connection in ConnectionKind.allCases {
            try RecorderScope.run {
                try withDatabase(connection, .readOnly, .wal) { reader, other in
                    let players = ValueObservation.trackingConstantRegion { db in try Row.fetchAll(db, sql: "SELECT * FROM player").map(\.count) }
                    let recorder = players.publisher(in: reader).includingOtherProcesses().record()
                    wait(for: recorder, valueCount: 1)
                    try other.execute("INSERT INTO player(name) VALUES ('Arthur')")
                    wait(for: recorder, until: { $0.values.last == [2] })
                    try other.execute("ALTER TABLE player ADD COLUMN score INTEGER")
                    wait(for: recorder, until: { $0.values.last == [3] })
                    try other.execute("DROP TABLE player")
                    let recording = waitForCompletion(of: recorder)
                    let error = try XCTUnwrap(recording.failure as? DatabaseError, "\(connection)")
                    XCTAssertEqual(error.message, "no such table: player", "\(connection)")
                }
            }
        }
    }

    // MARK: - Never writes

    func testReadOnlyDatabaseIsNeverWritten() throws {
        for journal in Journal.allCases {
            try RecorderScope.run {
                try withDatabase(.pool, .readOnly, journal, otherProcessStaysOpen: false) { reader, _ in
                    let before = try Data(contentsOf: URL(fileURLWithPath: reader.path))
                    let files = try FileManager.default.contentsOfDirectory(atPath: URL(fileURLWithPath: reader.path).deletingLastPathComponent().path)
                    let recorder = names.publisher(in: reader).includingOtherProcesses().record()
                    wait(for: recorder, valueCount: 1)
                    settle()
                    recorder.cancel()
                    try (reader as? DatabasePool)?.close()
                    XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: reader.path)), before, "\(journal)")
                    let filesAfter = try FileManager.default.contentsOfDirectory(atPath: URL(fileURLWithPath: reader.path).deletingLastPathComponent().path)
                    XCTAssertEqual(filesAfter.sorted(), files.sorted(), "\(journal)")
                }
            }
        }
    }

    func testDatabaseInMemoryWatchesNothing() throws {
        for path in ["", ":memory:", "file:players?mode=memory", "file::memory:", "file:", "file:x.sqlite?cache=shared&mode=memory"] {
            XCTAssertNil(try CommitWatch.watchedFiles(ofDatabaseAtPath: path), path)
        }
        try RecorderScope.run {
            let dbQueue = try DatabaseQueue()
            try dbQueue.write { db in try db.execute(sql: "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT)") }
            let recorder = names.publisher(in: dbQueue).includingOtherProcesses().record()
            try dbQueue.write { db in try db.execute(sql: "INSERT INTO player(name) VALUES ('Arthur')") }
            wait(for: recorder, until: { $0.values == [[], ["Arthur"]] })
        }
    }

    func testWatchedFilesAreNextToTheFileALinkPointsTo() throws {
        try withTemporaryDirectory { directory in
            let target = directory.appendingPathComponent("data", isDirectory: true)
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            XCTAssertTrue(FileManager.default.createFile(atPath: target.appendingPathComponent("players.sqlite").path, contents: nil))
            let link = directory.appendingPathComponent("link.sqlite").path
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target.appendingPathComponent("players.sqlite").path)

            let files = try XCTUnwrap(CommitWatch.watchedFiles(ofDatabaseAtPath: link))
            XCTAssertEqual(files.directory, target.resolvingSymlinksInPath().path)
            XCTAssertEqual(files.names, ["players.sqlite", "players.sqlite-wal", "players.sqlite-journal"])
        }
    }

    func testEveryPathFormIsWatchedAtItsRealFile() throws {
        try RecorderScope.run {
            try withDatabase(.queue, .writable, .delete) { reader, _ in
                // data/players sqlite.sqlite, reached through every form
                // of path that SQLite opens.
                let directory = URL(fileURLWithPath: resolved(reader.path)).deletingLastPathComponent()
                let data = directory.appendingPathComponent("data/deep", isDirectory: true)
                try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
                let file = data.appendingPathComponent("players sqlite.sqlite").path
                try FileManager.default.copyItem(atPath: reader.path, toPath: file)
                let link = directory.appendingPathComponent("link.sqlite").path
                try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file)
                // `..` after a link to a directory is the parent of its target.
                let deepLink = directory.appendingPathComponent("deep").path
                try FileManager.default.createSymbolicLink(atPath: deepLink, withDestinationPath: data.path)
                let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).resolvingSymlinksInPath().path
                let relative = String(repeating: "../", count: cwd.split(separator: "/").count) + file.dropFirst()
                let encoded = try XCTUnwrap(file.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed))
                let other = try SQLiteCommand(path: file)
                defer { other.close() }
                let paths = [
                    "file:\(encoded)?mode=ro",
                    "file://\(encoded)",
                    "file://localhost\(encoded)?cache=private#fragment",
                    "file:\(relative)",
                    relative,
                    link,
                    deepLink + "/../deep/players sqlite.sqlite",
                ]
                for (index, path) in paths.enumerated() {
                    let files = try XCTUnwrap(CommitWatch.watchedFiles(ofDatabaseAtPath: path), path)
                    XCTAssertEqual(files.file, file, path)
                    XCTAssertEqual(files.directory, data.path, path)
                    XCTAssertEqual(files.names, ["players sqlite.sqlite", "players sqlite.sqlite-wal", "players sqlite.sqlite-journal"], path)

                    // The subscription sees the next commit.
                    let dbQueue = try DatabaseQueue(path: path)
                    let recorder = names.publisher(in: dbQueue).includingOtherProcesses().record()
                    wait(for: recorder, valueCount: 1)
                    let name = "Player \(index)"
                    try other.execute("INSERT INTO player(name) VALUES ('\(name)')")
                    let recording = wait(for: recorder, until: { $0.values.last?.last == name || $0.isComplete })
                    XCTAssertEqual(recording.values.last?.last, name, path)
                    XCTAssertNil(recording.completion, path)
                    recorder.cancel()
                    try dbQueue.close()
                }
                // A URI of another host, which SQLite would not open, or a
                // missing file: one clear error.
                for path in ["file://example.com/players.sqlite", directory.appendingPathComponent("missing.sqlite").path] {
                    XCTAssertThrowsError(try CommitWatch.watchedFiles(ofDatabaseAtPath: path), path) { error in
                        XCTAssertTrue("\(error)".hasPrefix("cannot watch \"\(path)\": "), "\(error)")
                    }
                }
            }
        }
    }

    // MARK: - FileChangeSource

    func testUnwatchableDirectoryIsAnError() throws {
        try withTemporaryDirectory { directory in
            let missing = directory.appendingPathComponent("missing").path
            XCTAssertThrowsError(try FileChangeSource(directory: missing, names: ["players.sqlite"], queue: .main, onChange: { _ in })) { error in
                XCTAssertEqual(
                    (error as? FileChangeSourceError)?.description,
                    "cannot watch \"\(missing)\": No such file or directory")
            }
        }
    }

    func testFileChangeSourceReportsWritesAndMovesOfItsFiles() throws {
        try withTemporaryDirectory { directory in
            let events = Synchronized<[FileChangeSource.Events]>([])
            let source = try FileChangeSource(
                directory: directory.path, names: ["watched"], queue: .main,
                onChange: { change in events.update { $0.append(change) } })
            defer { source.cancel() }
            try write("other", to: directory.appendingPathComponent("other"))
            RunLoop.main.run(until: Date(timeIntervalSinceNow: 0.2))
            XCTAssertEqual(events.value, [], "another file")

            try write("watched", to: directory.appendingPathComponent("watched"))
            wait(for: events, until: { $0.contains { $0.contains(.written) } })
            events.update { $0 = [] }
            try FileManager.default.removeItem(at: directory.appendingPathComponent("watched"))
            wait(for: events, until: { $0.contains { $0.contains(.moved) } })
        }
    }

    func testFileChangeSourceRunsItsHandlerOnItsOwnThreadWithinTheQueue() throws {
        // One thread wakes up for a batch of events: the handler runs on it,
        // with the queue held (`sync`), not on a worker that a manager
        // thread woke up.
        try withTemporaryDirectory { directory in
            let queue = DispatchQueue(label: "changes")
            let threads = Synchronized<[String?]>([])
            let source = try FileChangeSource(
                directory: directory.path, names: ["watched"], queue: queue,
                onChange: { _ in
                    dispatchPrecondition(condition: .onQueue(queue))
                    threads.update { $0.append(Thread.current.name) }
                })
            defer { source.cancel() }
            try write("watched", to: directory.appendingPathComponent("watched"))
            wait(for: threads, until: { !$0.isEmpty })
            XCTAssertEqual(threads.value.first, FileChangeSource.threadName)
        }
    }

    func testASuspendedFileChangeSourceReportsTheEventsHeldBackOnResume() throws {
        try withTemporaryDirectory { directory in
            let queue = DispatchQueue(label: "changes")
            let events = Synchronized<[FileChangeSource.Events]>([])
            let source = try FileChangeSource(
                directory: directory.path, names: ["watched"], queue: queue,
                onChange: { change in events.update { $0.append(change) } })
            defer { source.cancel() }
            queue.sync { source.suspend() }
            try write("watched", to: directory.appendingPathComponent("watched"))
            Thread.sleep(forTimeInterval: 0.2)
            XCTAssertEqual(events.value, [], "held back")
            queue.sync { source.resume() }
            wait(for: events, until: { $0.contains { $0.contains(.written) } })
            source.cancel()
            source.cancel()
        }
    }

    // MARK: - Support

    enum ConnectionKind: String, CaseIterable, CustomStringConvertible {
        case queue = "DatabaseQueue"
        case pool = "DatabasePool"
        var description: String { rawValue }
    }

    enum Access: String, CaseIterable, CustomStringConvertible {
        case writable
        case readOnly = "read-only"
        var description: String { rawValue }
    }

    enum Journal: String, CaseIterable, CustomStringConvertible {
        case wal
        case delete
        var description: String { rawValue }
    }

    /// Runs `body` with a database made by the `sqlite3` command, and that
    /// command still running, its connection open.
    ///
    /// A read-only database is a file of mode 0444. In WAL mode, its
    /// directory is read-only too (0555); in rollback mode, the other
    /// process must create its journal in the directory, which stays
    /// writable.
    private func withDatabase(
        _ connection: ConnectionKind,
        _ access: Access,
        _ journal: Journal,
        otherProcessStaysOpen: Bool = true,
        configuration: Configuration = Configuration(),
        _ body: (any DatabaseReader, SQLiteCommand) throws -> Void) throws
    {
        try withTemporaryDirectory { directory in
            let (path, other) = try otherProcessDatabase(in: directory, """
                PRAGMA journal_mode = \(journal.rawValue);
                CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE team(id INTEGER PRIMARY KEY);
                """)
            defer { other.close() }
            if !otherProcessStaysOpen {
                other.close()
            }
            var configuration = configuration
            if access == .readOnly {
                configuration.readonly = true
                XCTAssertEqual(chmod(path, 0o444), 0)
                if journal == .wal {
                    XCTAssertEqual(chmod(directory.path, 0o555), 0)
                }
            }
            defer { chmod(directory.path, 0o755) }
            let reader: any DatabaseReader
            switch connection {
            case .queue: reader = try DatabaseQueue(path: path, configuration: configuration)
            case .pool: reader = try DatabasePool(path: path, configuration: configuration)
            }
            try body(reader, other)
        }
    }

    /// Lets the checks that follow a write run, to see that they do
    /// nothing more.
    private func settle() {
        RunLoop.main.run(until: Date(timeIntervalSinceNow: 0.3))
    }

    private func resolved(_ path: String) -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }

    /// Writes `text` in place, with one `write`: no temporary file renamed.
    private func write(_ text: String, to url: URL) throws {
        XCTAssertTrue(FileManager.default.createFile(atPath: url.path, contents: nil))
        let handle = try FileHandle(forWritingTo: url)
        try handle.write(contentsOf: Data(text.utf8))
        try handle.close()
    }
}
