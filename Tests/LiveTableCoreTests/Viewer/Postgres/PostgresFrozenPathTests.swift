import Foundation
import XCTest
import LiveTableTestSupport
import PostgresClient
import PostgresServer
@testable import LiveTableCore
#if canImport(Glibc)
import Glibc
#endif

/// The commit watch and the reads behind a frozen network path: a TCP
/// proxy between them and the tests' real server stops forwarding without
/// closing anything (as a proxy stopped with SIGSTOP: the kernel still
/// ACKs, nothing answers). They must say so within their deadlines, and catch
/// up once the path moves again.
final class PostgresFrozenPathTests: XCTestCase {
    /// A database of its own with a table `track` holding `rows`, its
    /// writer, and a proxy to the server with the viewer's URL through it;
    /// closed and stopped when the test ends.
    private func trackBehindProxy(
        _ database: String, rows: String = "(1, 'One')") throws -> (writer: PostgresSession, proxy: FreezableProxy, url: String)
    {
        let server = try PostgresServer.shared
        try server.createDatabase(database)
        let writer = try server.session(database: database, as: server.writer)
        addTeardownBlock { writer.close() }
        try writer.execute("CREATE TABLE track(id int PRIMARY KEY, title text); INSERT INTO track VALUES \(rows);")
        let (proxy, url) = try viewerBehindProxy(database)
        return (writer, proxy, url)
    }

    /// A proxy to the server, stopped when the test ends, and the viewer's
    /// URL of `database` through it.
    private func viewerBehindProxy(_ database: String) throws -> (proxy: FreezableProxy, url: String) {
        let server = try PostgresServer.shared
        let proxy = try FreezableProxy(to: server.port)
        addTeardownBlock { proxy.stop() }
        let url = server.url(role: server.viewer, database: database, host: .tcp)
            .replacing("127.0.0.1:\(server.port)/", with: "127.0.0.1:\(proxy.port)/")
        return (proxy, url)
    }

    func testAFrozenPathIsReportedLostThenSignalledOnceItMovesAgain() throws {
        let (writer, proxy, url) = try trackBehindProxy("testWatchFrozen")
        let watch = PostgresCommitWatch(connectionString: url, settings: PostgresCommitWatchTests.settings)
        let events = EventRecorder()
        let observer = watch.observe(events.record)
        defer { observer.cancel() }
        waitUntil("connected") { events.changes >= 1 }
        XCTAssertTrue(events.losses.isEmpty, "\(events.losses)")

        proxy.freeze()
        let frozenAt = Date()
        waitUntil("lost", timeout: 5) { !events.losses.isEmpty }
        let delay = Date().timeIntervalSince(frozenAt)
        print("frozen path → lost, s: \(String(format: "%.2f", delay))")
        // The deadline (1 s at 0.05 s), a poll, and a wide margin for a
        // machine shared with builds: TCP alone would take minutes.
        XCTAssertLessThan(delay, 4)
        XCTAssertEqual(events.losses.first?.kind, .connection)
        XCTAssertEqual(events.losses.first?.message, "no answer from the server for 1 s")

        // A commit while the path is frozen, seen once it moves again.
        try writer.execute("UPDATE track SET title = 'unseen' WHERE id = 1;")
        let before = events.changes
        proxy.thaw()
        waitUntil("reconnected and signalled", timeout: 10) { events.changes > before }
        XCTAssertEqual(events.losses.count, 1, "\(events.losses)")
    }

    /// Once the path froze, the poll connects again (with backoff), and
    /// that attempt waits: for `connect_timeout` in libpq, 30 s here. A
    /// stop (leaving the table, quitting) must not wait with it: the
    /// attempt polls the wake-up descriptor too. Once the path moves, a
    /// new watch connects and reports commits.
    func testAReconnectionThroughAFrozenPathDoesNotHoldTheStop() throws {
        let (writer, proxy, url) = try trackBehindProxy("testWatchReconnectFrozen")
        var settings = PostgresCommitWatchTests.settings
        settings["connect_timeout"] = "30"
        let events = EventRecorder()
        let poll = CommitPoll(connectionString: url, settings: settings, interval: 0.05, channel: nil, send: events.record)
        poll.start()
        waitUntil("connected") { events.changes >= 1 }

        proxy.freeze()
        waitUntil("lost", timeout: 10) { !events.losses.isEmpty }
        waitUntil("connecting again through the frozen path", timeout: 10) { proxy.acceptedConnections >= 2 }
        let stopped = Date()
        poll.stop()
        XCTAssertTrue(poll.waitUntilFinished(timeout: 5), "the stop waited for the connection attempt")
        print("frozen path → stop while connecting, s: \(String(format: "%.3f", Date().timeIntervalSince(stopped)))")

        proxy.thaw()
        let watch = PostgresCommitWatch(connectionString: url, settings: settings)
        let fresh = EventRecorder()
        let observer = watch.observe(fresh.record)
        defer { observer.cancel() }
        waitUntil("a new watch connected") { fresh.changes >= 1 }
        let before = fresh.changes
        try writer.execute("UPDATE track SET title = 'Uno' WHERE id = 1;")
        waitUntil("the commit reported") { fresh.changes > before }
        XCTAssertTrue(fresh.losses.isEmpty, "\(fresh.losses)")
    }

    /// Abandoning a read sends a cancel (PQcancel: a connection of its
    /// own to the server, answered when the server closes it). Behind a
    /// frozen path that answer never comes: the caller, the screen's
    /// thread, must not wait for it.
    func testACancelBehindAFrozenPathReturnsAtOnce() throws {
        let (proxy, url) = try viewerBehindProxy("postgres")
        let connection = try PostgresConnection(url)
        XCTAssertEqual(try connection.execute("SELECT 1").rows, [["1"]])
        proxy.freeze()
        // Thawed in any case, so that a cancel that waits ends the test.
        DispatchQueue.global().asyncAfter(deadline: .now() + 3) { proxy.thaw() }
        let started = Date()
        connection.cancel()
        let waited = Date().timeIntervalSince(started)
        // Inline, it would wait for the thaw, 3 s away: a wide margin for
        // a machine shared with builds.
        XCTAssertLessThan(waited, 2, "cancel() waited for the frozen path")
        // Once the path moves, the cancel is done, and the statement that
        // waited for it runs.
        proxy.thaw()
        XCTAssertEqual(try connection.execute("SELECT 2", timeout: 5).rows, [["2"]])
    }

    /// A window read and a count behind a frozen path fail by our
    /// deadline (statement_timeout + 2 s), not when TCP gives up, as a
    /// transient failure (`not live`); their sessions are dropped, and
    /// the next reads, once the path moves, open new ones.
    func testReadsThroughAFrozenPathFailByTheirDeadlineThenReadAgainOnceItMoves() throws {
        let (writer, proxy, url) = try trackBehindProxy("testReadsFrozen", rows: "(1, 'One'), (2, 'Two')")
        let database = try PostgresDataSource(url, settings: .init(statementTimeout: 1))
        let viewed = try database.open(.table("track"), sortColumn: nil, descending: false, ticket: ReadTicket())
        let request = RowWindowRequest(ordering: viewed.ordering, anchor: .first, before: 0, after: 10)
        func titles() throws -> [String] {
            try texts(database.fetchWindow(viewed, request, ticket: ReadTicket())).map { $0[1] }
        }
        XCTAssertEqual(try titles(), ["One", "Two"])
        // The background session is open before the path freezes: the
        // reads below wait for an answer, not for a connection.
        XCTAssertEqual(try database.countRows(of: viewed.source, ticket: ReadTicket()), .exact(2))

        proxy.freeze()
        let reads: [(String, () throws -> Void)] = [
            ("window", { _ = try titles() }),
            ("count", { _ = try database.countRows(of: viewed.source, ticket: ReadTicket()) }),
        ]
        for (read, body) in reads {
            let started = Date()
            XCTAssertThrowsError(try body(), read) { error in
                XCTAssertEqual((error as? PostgresError)?.kind, .connection, "\(read): \(error)")
                XCTAssertEqual((error as? PostgresError)?.message, "no answer from the server for 3 s", read)
                XCTAssertEqual(database.failureKind(of: error), .transient, read)
            }
            let waited = Date().timeIntervalSince(started)
            print("frozen path → \(read) failed, s: \(String(format: "%.2f", waited))")
            // statement_timeout 1 s + margin 2 s, and slack for a machine
            // shared with builds; tcp_user_timeout would take 10 s.
            XCTAssertGreaterThanOrEqual(waited, 3, read)
            XCTAssertLessThan(waited, 8, read)
        }
        try assertReconnectionsAreBounded(database, viewed, proxy: proxy, window: titles)

        try writer.execute("UPDATE track SET title = 'Uno' WHERE id = 1;")
        proxy.thaw()
        XCTAssertEqual(try titles(), ["Uno", "Two"])
        XCTAssertEqual(try database.countRows(of: viewed.source, ticket: ReadTicket()), .exact(2))
    }

    /// Both sessions dropped, the next reads connect again through the
    /// path still frozen: the read's answer timeout bounds the attempt
    /// (`connect_timeout` would take 10 s, and the read tried it twice),
    /// and an abandoned ticket ends it at once.
    private func assertReconnectionsAreBounded(
        _ database: PostgresDataSource, _ viewed: ViewedSource, proxy: FreezableProxy,
        window: () throws -> [String]) throws
    {
        let started = Date()
        XCTAssertThrowsError(try window()) { error in
            XCTAssertEqual((error as? PostgresError)?.message, "no connection to the server in 3 s")
            XCTAssertEqual(database.failureKind(of: error), .transient)
        }
        let waited = Date().timeIntervalSince(started)
        print("frozen path → window read connecting failed, s: \(String(format: "%.2f", waited))")
        XCTAssertLessThan(waited, 8, "the read waited for connect_timeout")

        let accepted = proxy.acceptedConnections
        let ticket = ReadTicket()
        DispatchQueue.global().async {
            proxy.waitForConnections(atLeast: accepted + 1, timeout: 20)
            ticket.abandon()
        }
        let counting = Date()
        XCTAssertThrowsError(try database.countRows(of: viewed.source, ticket: ticket)) { error in
            XCTAssertEqual((error as? PostgresError)?.kind, .canceled, "\(error)")
        }
        XCTAssertGreaterThan(proxy.acceptedConnections, accepted, "abandoned before it connected")
        XCTAssertLessThan(Date().timeIntervalSince(counting), 8, "the abandoned read waited for connect_timeout")
    }

    func testNetworkSettingsUnlessTheStringSetsThem() {
        let settings = PostgresDataSource.Settings()
        let plain = settings.connectionSettings(for: "host=db dbname=shop")
        XCTAssertEqual(plain["keepalives"], "1")
        XCTAssertEqual(plain["keepalives_idle"], "5")
        XCTAssertEqual(plain["tcp_user_timeout"], "10000")
        let own = settings.connectionSettings(for: "postgres://db/shop?keepalives=0&tcp_user_timeout=60000")
        XCTAssertNil(own["keepalives"], "the string's own keepalives overridden")
        XCTAssertNil(own["tcp_user_timeout"], "the string's own tcp_user_timeout overridden")
        XCTAssertEqual(own["keepalives_idle"], "5")
    }

    func testNetworkSettingsAreAcceptedByLibpqOverTCP() throws {
        let server = try PostgresServer.shared
        let url = server.url(role: server.viewer, host: .tcp)
        let connection = try PostgresConnection(
            url, settings: PostgresDataSource.Settings().connectionSettings(for: url))
        XCTAssertEqual(try connection.execute("SELECT 1").rows.first?.first, "1")
    }
}
