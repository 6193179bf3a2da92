import Foundation
import XCTest

/// The terminal is restored whatever ends the app: keys, signals, crashes.
/// After the app, the pane shows the shell's output only (the app's
/// alternate screen is gone), and echo and canonical input are back.
final class ExitTests: LiveTableTestCase {
    private func assertQuits(with keys: String..., file: StaticString = #filePath, line: UInt = #line) throws {
        let (session, _) = try startApp(file: file, line: line)
        try session.send(keys.first!)
        for key in keys.dropFirst() {
            try session.send(key)
        }
        let screen = try waitForExit(session, status: 0, file: file, line: line)
        XCTAssertFalse(screen.contains("Hall of Fame"), screen, file: file, line: line)
    }

    func testQuitKeyRestoresTheTerminal() throws {
        try assertQuits(with: "q")
    }

    func testEscapeClosesTheHelpAndNeverQuits() throws {
        let (session, database) = try startApp()
        try session.send("?")
        try session.waitForScreen(containing: "Press any key to close")
        try session.send("Escape")
        try session.waitForScreen("the help closed") { !$0.contains("Press any key to close") }
        // At the bottom, Esc does nothing: the app goes on showing what
        // another process writes (its write is slower than a lone Esc's 25 ms).
        try session.send("Escape")
        _ = try sqlite(database, "INSERT INTO player(name, score) VALUES ('Still here', 5000)")
        try session.waitForScreen(containing: "Still here")
        try session.send("q")
        try waitForExit(session, status: 0)
    }

    func testControlCQuits() throws {
        try assertQuits(with: "C-c")
    }

    func testControlCQuitsFromTheEditForm() throws {
        let (session, _) = try startApp()
        try session.send("e")
        try session.waitForScreen(containing: "Edit player")
        try session.send("C-c")
        let screen = try waitForExit(session, status: 0)
        XCTAssertFalse(screen.contains("Edit player"), screen)
    }

    private func assertSignalRestoresTheTerminal(
        _ signal: Int32, status: Int32,
        file: StaticString = #filePath, line: UInt = #line) throws
    {
        // Swift's backtracer would handle crash signals after the app's
        // handler: off, so that the process dies of the signal at once.
        // (Sent by kill, not by a fault, a crash signal that the
        // backtracer handles would not even end the process.)
        let (session, _) = try startApp(environment: ["SWIFT_BACKTRACE": "enable=no"], file: file, line: line)
        let pid = try session.childProcessID(named: "livetable")
        XCTAssertEqual(kill(pid, signal), 0, file: file, line: line)
        let screen = try waitForExit(session, status: status, file: file, line: line)
        XCTAssertFalse(screen.contains("Hall of Fame"), screen, file: file, line: line)
    }

    func testSIGTERMRestoresTheTerminal() throws {
        try assertSignalRestoresTheTerminal(SIGTERM, status: 128 + SIGTERM)
    }

    func testSIGTERMDuringALongMainThreadJobExitsPromptlyAndRestoresTheTerminal() throws {
        let marker = directory.appendingPathComponent("stalled")
        let (session, _) = try startApp(environment: ["LIVETABLE_TEST_STALL_MARKER": marker.path])
        // A key starts a job that holds the main thread for ten minutes.
        try session.send("j")
        try waitUntil("the main thread to be busy") { FileManager.default.fileExists(atPath: marker.path) }
        let pid = try session.childProcessID(named: "livetable")
        XCTAssertEqual(kill(pid, SIGTERM), 0)
        let screen = try waitForExit(session, status: 128 + SIGTERM, timeout: 3)
        XCTAssertFalse(screen.contains("Hall of Fame"), screen)
    }

    func testSIGHUPRestoresTheTerminal() throws {
        try assertSignalRestoresTheTerminal(SIGHUP, status: 128 + SIGHUP)
    }

    func testSIGINTRestoresTheTerminal() throws {
        try assertSignalRestoresTheTerminal(SIGINT, status: 128 + SIGINT)
    }

    /// A crash still dies of its signal (status 128 + n from the shell),
    /// after the handler restored the terminal.
    func testCrashRestoresTheTerminal() throws {
        try assertSignalRestoresTheTerminal(SIGSEGV, status: 128 + SIGSEGV)
    }

    func testAbortRestoresTheTerminal() throws {
        try assertSignalRestoresTheTerminal(SIGABRT, status: 128 + SIGABRT)
    }
}
