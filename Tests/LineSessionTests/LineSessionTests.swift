import Foundation
import LineSession
import LiveTableTestSupport
import XCTest

/// The shared line session, on a real `sqlite3` process: calls that end at
/// the marker, errors, secrets, timeouts, a tool that dies mid-call, and
/// closing. (`PostgresSessionTests` runs it on psql.)
final class LineSessionTests: XCTestCase {
    private func makeSession(secrets: [String] = []) throws -> LineSession {
        let path = try makeTemporaryDirectory().appendingPathComponent("db.sqlite").path
        let session = try LineSession(
            executable: URL(fileURLWithPath: "/usr/bin/env"), arguments: ["sqlite3", "-batch", path],
            dialect: .sqlite3, secrets: secrets)
        addTeardownBlock { session.close() }
        return session
    }

    func testCallsReturnWhatTheToolPrintedBeforeTheMarker() throws {
        let session = try makeSession()
        XCTAssertEqual(try session.execute("CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT)"), [])
        let before = DispatchTime.now().uptimeNanoseconds
        let committed = try session.run("INSERT INTO item VALUES (1, 'a'), (2, 'b')")
        XCTAssertGreaterThanOrEqual(committed, before)
        XCTAssertLessThanOrEqual(committed, DispatchTime.now().uptimeNanoseconds)
        XCTAssertEqual(try session.execute("SELECT id, name FROM item ORDER BY id;"), ["1|a", "2|b"])
        // A tool command takes no semicolon; a statement before it keeps its own.
        XCTAssertEqual(try session.execute("SELECT count(*) FROM item;\n.print done"), ["2", "done"])
        XCTAssertEqual(try session.output("SELECT name FROM item ORDER BY id"), "a\nb")
    }

    func testAnErrorThrowsTheToolsMessageAndTheSessionGoesOn() throws {
        let session = try makeSession()
        XCTAssertThrowsError(try session.execute("SELECT * FROM missing;")) { error in
            XCTAssertTrue(error is LineSession.Failure, "\(error)")
            XCTAssertTrue("\(error)".hasPrefix("sqlite3: "), "\(error)")
            XCTAssertTrue("\(error)".contains("no such table: missing"), "\(error)")
        }
        XCTAssertEqual(try session.output("SELECT 40 + 2;"), "42")
    }

    func testASecretNeverReachesAnError() throws {
        let secret = "s3cr3t-passw0rd"
        let session = try makeSession(secrets: [secret])
        XCTAssertThrowsError(try session.execute("SELECT * FROM \"\(secret)\";")) { error in
            XCTAssertTrue("\(error)".contains("no such table: …"), "the error, as the tool said it")
            XCTAssertFalse("\(error)".contains(secret), "the secret is in the error")
        }
        XCTAssertThrowsError(try session.execute(".system sleep 2 # \(secret)", timeout: 0.2)) { error in
            XCTAssertTrue("\(error)".contains("did not finish"), "\(error)")
            XCTAssertFalse("\(error)".contains(secret), "the secret is in the error")
        }
    }

    func testASecretCutOrEscapedInATimeoutNeverReachesTheError() throws {
        // A secret that the message's cut at 80 characters would split,
        // and one that its escaping would change (a quote).
        let cut = "p4ssw0rd-that-the-cut-splits"
        let quoted = "pa\"ss"
        let session = try makeSession(secrets: [cut, quoted])
        let padding = String(repeating: " ", count: 80 - ".system sleep 2 # ".count - 10)
        XCTAssertThrowsError(try session.execute(".system sleep 2 # \(padding)\(cut)", timeout: 0.2)) { error in
            XCTAssertTrue("\(error)".contains("did not finish"), "\(error)")
            XCTAssertFalse("\(error)".contains(cut.prefix(10)), "a part of the secret is in the error")
        }
        XCTAssertThrowsError(try session.execute(".system sleep 2 # \(quoted)", timeout: 0.2)) { error in
            XCTAssertFalse("\(error)".contains("pa\\\"ss"), "the escaped secret is in the error: \(error)")
            XCTAssertFalse("\(error)".contains(quoted), "the secret is in the error")
        }
    }

    func testATimedOutCallThrowsAndTheNextCallReadsOnlyItsOwnLines() throws {
        let session = try makeSession()
        let start = Date()
        XCTAssertThrowsError(try session.execute("SELECT 'late';\n.system sleep 3", timeout: 0.2)) { error in
            XCTAssertTrue("\(error)".contains("did not finish"), "\(error)")
        }
        // Its timeout is 0.2 s, the statement 3 s: a wide margin for a
        // machine shared with builds.
        XCTAssertLessThan(Date().timeIntervalSince(start), 2, "the call waited past its timeout")
        // The late call's output and marker come first, and are not this call's.
        XCTAssertEqual(try session.execute("SELECT 'mine';"), ["mine"])
    }

    func testAToolThatDiesMidCallEndsTheCallWithAClearError() throws {
        let session = try makeSession()
        try session.execute("CREATE TABLE item(id INTEGER PRIMARY KEY);")
        let start = Date()
        // The shell of `.system` kills sqlite3, its parent, before the marker.
        XCTAssertThrowsError(try session.execute(".system kill -9 $PPID", timeout: 20)) { error in
            XCTAssertTrue("\(error)".hasPrefix("sqlite3 has exited"), "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 10, "the call waited for its timeout")
        // Writing to a tool that has exited throws, rather than killing this
        // process with SIGPIPE.
        XCTAssertThrowsError(try session.execute("SELECT 1;")) { error in
            XCTAssertTrue("\(error)".hasPrefix("sqlite3 has exited"), "\(error)")
        }
        session.send("SELECT 2;")
    }

    func testCloseEndsTheToolAndLaterCallsThrow() throws {
        let session = try makeSession()
        let pid = session.processIdentifier
        XCTAssertEqual(kill(pid, 0), 0, "the tool runs")
        session.close()
        XCTAssertEqual(kill(pid, 0), -1, "the tool still runs after close")
        session.close()
        XCTAssertThrowsError(try session.execute("SELECT 1;")) { error in
            XCTAssertEqual("\(error)", "sqlite3 is closed")
        }
    }

    func testCloseTerminatesAToolThatDoesNotEnd() throws {
        let session = try makeSession()
        // A statement that never ends: sqlite3 does not read its input's end.
        session.send("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT count(*) FROM n;")
        let start = Date()
        session.close(timeout: 0.2)
        XCTAssertLessThan(Date().timeIntervalSince(start), 2, "close waited for the tool's statement")
    }

    func testAToolThatCannotRunThrows() throws {
        XCTAssertThrowsError(try LineSession(
            executable: URL(fileURLWithPath: "/nonexistent/sqlite3"), arguments: [], dialect: .sqlite3))
        { error in
            XCTAssertTrue("\(error)".hasPrefix("cannot run sqlite3"), "\(error)")
        }
    }
}
