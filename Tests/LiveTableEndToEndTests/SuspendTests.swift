import Foundation
import XCTest

/// Ctrl-Z in an interactive shell with job control, as users run the app:
/// the app gives the terminal back to the shell, and `fg` brings it back,
/// redrawn with what changed meanwhile.
final class SuspendTests: LiveTableTestCase {
    func testControlZSuspendsToTheShellAndFgResumes() throws {
        let database = directory.appendingPathComponent("players.sqlite")
        let session = try TmuxSession(
            command: "exec bash --norc --noprofile -i",
            environment: ["PS1": "$ ", "HOME": directory.path, "XDG_DATA_HOME": dataHome.path])
        defer { session.kill() }
        try session.waitForScreen(containing: "$")
        try session.type(([Self.binaryPath, "--database", database.path, "--seed", "1"]).map(Shell.quote).joined(separator: " "))
        try session.send("Enter")
        XCTAssertEqual(try waitForScreenMatchingDatabase(session, database).playerCount, "8")

        // Ctrl-Z twice, then SIGTSTP sent from outside.
        for round in 1...3 {
            if round < 3 {
                try session.send("C-z")
            } else {
                XCTAssertEqual(kill(try session.childProcessID(named: "livetable"), SIGTSTP), 0)
            }
            let screen = try session.waitForScreen("the shell to report the stopped app") { screen in
                screen.components(separatedBy: "Stopped").count - 1 == round
            }
            // The screen is the shell's again: the app left its screen.
            XCTAssertNil(AppScreen(screen).title, screen)

            // What changes while the app is stopped shows when it resumes.
            _ = try sqlite(database, "INSERT INTO player(name, score) VALUES ('Zed \(round)', \(99_000 + round))")
            try session.type("fg")
            try session.send("Enter")
            let resumed = try waitForScreenMatchingDatabase(session, database)
            XCTAssertEqual(resumed.playerCount, "\(8 + round)")
            XCTAssertEqual(resumed.rows.first, AppScreen.Row(name: "Zed \(round)", score: 99_000 + round))
        }

        // Keys work after resuming.
        try session.send("n")
        try waitForPlayerCount(database, 12)
        XCTAssertEqual(try waitForScreenMatchingDatabase(session, database).playerCount, "12")
        try session.send("q")
        try session.waitForScreen("the shell prompt") { AppScreen($0).title == nil }
        try session.type("echo \"EXITED $?\"")
        try session.send("Enter")
        try session.waitForScreen(containing: "EXITED 0")
    }

    /// `endwin` takes the terminal out of keypad transmit mode: resuming
    /// must put it back at once, or the first arrow key arrives as
    /// `ESC [ B`, not as the terminfo's `ESC O B`.
    func testArrowKeysWorkRightAfterResuming() throws {
        for term in ["xterm-256color", "tmux-256color"] {
            let database = directory.appendingPathComponent("players-\(term).sqlite")
            let session = try TmuxSession(
                command: "exec bash --norc --noprofile -i",
                environment: [
                    "PS1": "$ ", "HOME": directory.path, "XDG_DATA_HOME": dataHome.path, "TERM": term,
                ])
            defer { session.kill() }
            try session.waitForScreen(containing: "$")
            try session.type(([Self.binaryPath, "--database", database.path, "--seed", "1"]).map(Shell.quote).joined(separator: " "))
            try session.send("Enter")
            XCTAssertEqual(try waitForScreenMatchingDatabase(session, database).playerCount, "8")

            // Each key is the first one after a resume, by Ctrl-Z or by a
            // SIGTSTP from outside.
            let keys: [(key: String, row: Int)] = [
                ("Down", 2), ("Up", 1), ("End", 8), ("Home", 1), ("Right", 1), ("Left", 1), ("Down", 2),
            ]
            for (round, step) in keys.enumerated() {
                if round % 2 == 0 {
                    try session.send("C-z")
                } else {
                    XCTAssertEqual(kill(try session.childProcessID(named: "livetable"), SIGTSTP), 0)
                }
                try session.waitForScreen("\(term): the shell to report the stopped app") { screen in
                    screen.components(separatedBy: "Stopped").count - 1 == round + 1
                }
                try session.type("fg")
                try session.send("Enter")
                try session.waitForScreen("\(term): the app to be back") { AppScreen($0).title != nil }
                try waitUntil("\(term): keypad transmit mode after resume \(round + 1)") {
                    try session.isInKeypadMode()
                }
                try session.send(step.key)
                try session.waitForScreen("\(term): \(step.key) to select row \(step.row)") {
                    $0.contains("row \(step.row) of 8")
                }
            }
            // Still running: Left and Right did not quit either.
            try session.send("n")
            try waitForPlayerCount(database, 9)
            try session.send("q")
            try session.waitForScreen("\(term): the shell prompt") { AppScreen($0).title == nil }
            session.kill()
        }
    }
}
