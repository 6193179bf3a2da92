import Foundation
import SQLiteCommandLine
import XCTest

/// Files that another machine writes, in tmux: the real binary watches a
/// file through a FUSE mount (bindfs) while another process writes the
/// file behind the mount, as another machine writes a network share, so
/// that no inotify event reaches the viewer. With no option, the change
/// shows, and the title says the file is polled. `--poll` on a local file,
/// and a replica restored again and again by another process.
final class RemoteFileTests: LiveTableTestCase {
    private var mount: FuseMount?

    override func tearDownWithError() throws {
        // Before the test's directory is removed, or its removal would go
        // through the mount. A viewer still running keeps it busy: the
        // unmount is then lazy, and the mount goes with the viewer.
        mount?.unmount()
        try super.tearDownWithError()
    }

    // MARK: - A FUSE mount

    func testViewerOnAFuseMountShowsWritesBehindItAndSaysItIsPolled() throws {
        let mount = try makeMount()
        let behind = try makeFile(in: mount.source)
        let seen = mount.mountPoint.appendingPathComponent(behind.lastPathComponent)
        let session = try launch(["view", seen.path, "item"])
        try session.waitForScreen(containing: "row 1 of 50 · live · polled every 0.1 s: fuse")

        _ = try sqlite(behind, "INSERT INTO item(name, price) VALUES ('a remote row', 7)")
        try session.waitForScreen(containing: "row 1 of 51 · live · polled every 0.1 s: fuse")
        try Shell.python(#"""
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1])
            c.execute("UPDATE item SET name = 'renamed far away' WHERE name = 'item 001'")
            c.commit()
            """#, [behind.path])
        try session.waitForScreen(containing: "renamed far away")

        let sha256 = try Shell.sha256(behind)
        try session.send("q")
        try waitForExit(session, status: 0)
        XCTAssertEqual(try Shell.sha256(behind), sha256, "the viewer wrote to the file")
        XCTAssertEqual(try sqlite(behind, "PRAGMA integrity_check"), "ok")
    }

    func testLocalFileIsNotPolled() throws {
        let file = try makeFile(in: directory)
        let session = try launch(["view", file.path, "item"])
        let screen = try session.waitForScreen(containing: "row 1 of 50 · live")
        XCTAssertFalse(screen.contains("polled"), screen)
        try session.send("q")
        try waitForExit(session, status: 0)
    }

    // MARK: - WAL on a FUSE mount

    func testWALFileOnAFuseMountIsNotSaidLiveAndTheStatusLineSaysWhy() throws {
        // A mount that caches pages: SQLite opens the WAL file there, but
        // the other side's commits never show (its -shm index is not shared).
        let mount = try makeMount(directIO: false)
        let behind = try makeFile(in: mount.source, mode: "wal")
        let seen = mount.mountPoint.appendingPathComponent(behind.lastPathComponent)
        let session = try launch(["view", seen.path, "item"], width: 160)
        let screen = try session.waitForScreen(containing: "row 1 of 50 · not live · WAL on fuse")
        XCTAssertTrue(screen.contains(
            "WAL on a FUSE file system (fuse): other machines' commits can't be seen; "
                + "use journal_mode=DELETE, or view it on the writer's machine"), screen)
        XCTAssertFalse(screen.contains("· live"), screen)
        try session.send("q")
        try waitForExit(session, status: 0)
    }

    func testFileTurnedToWALOnAFuseMountAfterLaunchIsNoLongerSaidLive() throws {
        let mount = try makeMount(directIO: false)
        let behind = try makeFile(in: mount.source)
        let seen = mount.mountPoint.appendingPathComponent(behind.lastPathComponent)
        let session = try launch(["view", seen.path, "item"], width: 160)
        try session.waitForScreen(containing: "row 1 of 50 · live · polled every 0.1 s: fuse")
        XCTAssertEqual(try sqlite(behind, "PRAGMA journal_mode=WAL"), "wal")
        let screen = try session.waitForScreen(containing: "row 1 of 50 · not live · WAL on fuse")
        XCTAssertTrue(screen.contains("other machines' commits can't be seen"), screen)
        // A file put in its place that is not in WAL: live again.
        let replacement = try makeFile(in: directory)
        try FileManager.default.moveItem(at: behind, to: mount.source.appendingPathComponent("new.sqlite"))
        try FileManager.default.moveItem(at: replacement, to: behind)
        try session.waitForScreen(containing: "row 1 of 50 · live · polled every 0.1 s: fuse")
        try session.send("q")
        try waitForExit(session, status: 0)
    }

    func testHallOfFameInWALOnAFuseMountSaysTheFileSystem() throws {
        let mount = try makeMount(directIO: false)
        let database = mount.mountPoint.appendingPathComponent("players.sqlite")
        let session = try launch(["--database", database.path, "--seed", "1"])
        try session.waitForScreen(containing: "polled every 0.1 s: fuse")
        XCTAssertEqual(try sqlite(database, "PRAGMA journal_mode"), "wal")
        try session.send("q")
        try waitForExit(session, status: 0)
    }

    func testWALFileOnADirectIOMountIsRefusedNamingWALAndTheFileSystem() throws {
        let mount = try makeMount()
        let behind = try makeFile(in: mount.source, mode: "wal")
        let seen = mount.mountPoint.appendingPathComponent(behind.lastPathComponent)
        let result = try Shell.run(Self.binaryPath, ["view", seen.path, "item"], environment: [
            "TERM": "xterm-256color", "XDG_DATA_HOME": dataHome.path, "PATH": "/usr/bin:/bin",
        ])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(
            result.standardError,
            "livetable: error: cannot open \"\(seen.path)\": it is in WAL mode, which a FUSE file system (fuse) "
                + "mounted with direct_io can not read (no shared -shm index): use journal_mode=DELETE, "
                + "or view it on the writer's machine\n")
    }

    // MARK: - A replaced file

    func testFileReplacedByRenameIsReopenedInTheSameTableSortFilterAndRow() throws {
        let file = try makeFile(in: directory)
        let session = try launch(["view", file.path, "item", "--sort", "name"])
        try session.waitForScreen(containing: "row 1 of 50 · live")
        try session.send("f")
        try session.type("price < 40")
        try session.send("Enter")
        try session.waitForScreen(containing: "row 1 of 39 · live")
        try session.send("j", "j")
        try session.waitForScreen(containing: "row 3 of 39 · live")

        // Written under another name and renamed over it, as `litestream
        // restore -o` and deploy scripts do: 60 items, each 10 cheaper, and
        // "item 000" before them in the sort.
        let fresh = directory.appendingPathComponent("app.sqlite.tmp")
        try Shell.python(#"""
            import os, sqlite3, sys
            c = sqlite3.connect(sys.argv[1])
            c.execute("CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price INTEGER, note)")
            c.executemany("INSERT INTO item(name, price) VALUES (?, ?)", [("item %03d" % i, i - 10) for i in range(1, 61)])
            c.execute("INSERT INTO item(name, price) VALUES ('item 000', 0)")
            c.commit()
            c.close()
            os.rename(sys.argv[1], sys.argv[2])
            """#, [fresh.path, file.path])
        // The same sort, filter and row ("item 003", one row down now), in
        // the new file.
        let screen = try session.waitForScreen(containing: "row 4 of 50 · live")
        XCTAssertTrue(screen.contains("file replaced: reopened"), screen)
        XCTAssertTrue(screen.contains("by name ↑"), screen)
        XCTAssertTrue(screen.contains("where price < 40"), screen)
        try session.send("q")
        try waitForExit(session, status: 0)
    }

    func testPickerAfterAFileReplacedTwiceListsTheTablesOfTheNewFile() throws {
        let file = try makeFile(in: directory)
        let session = try launch(["view", file.path, "item"])
        try session.waitForScreen(containing: "row 1 of 50 · live")
        /// Renames over the file a new one holding `tables`.
        func replace(with tables: [String]) throws {
            let fresh = directory.appendingPathComponent("app.sqlite.tmp")
            try Shell.python(#"""
                import os, sqlite3, sys
                c = sqlite3.connect(sys.argv[1])
                for name in sys.argv[3:]:
                    c.execute("CREATE TABLE %s(x)" % name)
                c.commit()
                c.close()
                os.rename(sys.argv[1], sys.argv[2])
                """#, [fresh.path, file.path] + tables)
        }
        try replace(with: ["solo"])
        var screen = try session.waitForScreen(containing: "solo")
        XCTAssertFalse(screen.contains("item "), screen)
        try replace(with: ["item", "second"])
        try session.send("Enter")
        // The open of "solo" fails, and says which tables the file has: the
        // picker lists them (a row: the name, then blanks).
        screen = try session.waitForScreen(containing: " second  ")
        XCTAssertTrue(screen.contains("no table or view"), screen)
        XCTAssertFalse(screen.contains(" solo  "), screen)
        try session.send("q")
        try waitForExit(session, status: 0)
    }

    func testFileBehindAFuseMountRemountedLazilyIsReopened() throws {
        let mount = try makeMount()
        let behind = try makeFile(in: mount.source)
        let seen = mount.mountPoint.appendingPathComponent(behind.lastPathComponent)
        let session = try launch(["view", seen.path, "item", "--sort", "name"])
        try session.waitForScreen(containing: "row 1 of 50 · live · polled every 0.1 s: fuse")
        try session.send("j", "j")
        try session.waitForScreen(containing: "row 3 of 50 · live")
        // The viewer keeps the old mount busy: unmounted lazily, then the
        // path is on a new mount.
        try mount.remount()
        try session.waitForScreen(containing: "file replaced: reopened")
        _ = try sqlite(behind, "INSERT INTO item(name, price) VALUES ('remounted', 7)")
        try session.waitForScreen(containing: "row 3 of 51 · live · polled every 0.1 s: fuse")
        try session.send("q")
        try waitForExit(session, status: 0)
    }

    // MARK: - --poll

    func testPollOnALocalFileIsSaidAndWritesShow() throws {
        let file = try makeFile(in: directory)
        let session = try launch(["view", file.path, "item", "--poll", "0.05"])
        try session.waitForScreen(containing: "row 1 of 50 · live · polled every 0.05 s")
        _ = try sqlite(file, "INSERT INTO item(name, price) VALUES ('a new row', 7)")
        try session.waitForScreen(containing: "row 1 of 51 · live · polled every 0.05 s")
        try session.send("q")
        try waitForExit(session, status: 0)

        // The Hall of Fame says it in its status line.
        let (app, database) = try startApp(arguments: ["--poll", "2"])
        try app.waitForScreen(containing: "polled every 2 s")
        _ = try sqlite(database, "INSERT INTO player(name, score) VALUES ('Zed Outsider', 99999)")
        try app.waitForScreen(containing: "Zed Outsider")
        try app.send("q")
        try waitForExit(app, status: 0)
    }

    func testBadPollIntervalIsRefusedInOneLine() throws {
        for (arguments, value) in [
            (["view", "app.sqlite", "--poll"], "0.01"), (["view", "app.sqlite", "--poll"], "61"),
            (["view", "app.sqlite", "--poll"], "soon"), (["--poll"], "-1"), (["--poll"], "nan"),
            (["view", "app.sqlite", "--poll"], "0x10"), (["--poll"], "1e400"), (["--poll"], "0x1p-2"),
        ] {
            let result = try Shell.run(Self.binaryPath, arguments + [value], environment: [
                "TERM": "xterm-256color", "XDG_DATA_HOME": dataHome.path, "PATH": "/usr/bin:/bin",
            ])
            XCTAssertEqual(result.status, 64, "\(arguments) \(value)")
            XCTAssertEqual(result.standardOutput, "")
            // Each command points to its own help.
            let help = arguments.first == "view" ? "livetable view --help" : "livetable --help"
            XCTAssertEqual(
                result.standardError,
                "livetable: error: The value '\(value)' is invalid for '--poll <seconds>': "
                    + "the interval must be a number of seconds from 0.02 to 60 (see '\(help)')\n")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dataHome.path), "nothing is created")
    }

    func testPollIsInTheHelp() throws {
        for arguments in [["--help"], ["view", "--help"]] {
            let result = try Shell.run(Self.binaryPath, arguments, environment: ["PATH": "/usr/bin:/bin", "COLUMNS": "200"])
            XCTAssertEqual(result.status, 0)
            XCTAssertTrue(result.standardOutput.contains("--poll <seconds>"), result.standardOutput)
            XCTAssertTrue(result.standardOutput.contains("polled every 0.1 s"), result.standardOutput)
        }
    }

    // MARK: - Replicas

    func testReplicaRestoredAgainAndAgainBehindAFuseMountIsFollowed() throws {
        let mount = try makeMount()
        // WAL needs memory shared between the connections, which a network
        // file system does not give: the rollback journal there.
        let behind = try makeFile(in: mount.source, mode: "delete")
        try assertReplicaIsFollowed(
            watched: mount.mountPoint.appendingPathComponent(behind.lastPathComponent), restored: behind,
            polled: "polled every 0.1 s: fuse")
        XCTAssertEqual(try sqlite(behind, "PRAGMA journal_mode"), "delete")
    }

    func testReplicaRestoredAgainAndAgainInWALIsFollowed() throws {
        let file = try makeFile(in: directory, mode: "wal")
        try assertReplicaIsFollowed(watched: file, restored: file, polled: nil)
        XCTAssertEqual(try sqlite(file, "PRAGMA journal_mode"), "wal")
    }

    /// A replica as Litestream's restore or a backup job makes it: another
    /// process copies a whole database onto the watched file, again and
    /// again (Python's `Connection.backup`, SQLite's backup API, as the
    /// sqlite3 command's `.restore`).
    private func assertReplicaIsFollowed(
        watched: URL, restored: URL, polled: String?,
        file: StaticString = #filePath, line: UInt = #line) throws
    {
        let session = try launch(["view", watched.path, "item", "--sort", "name"])
        let suffix = polled.map { " · \($0)" } ?? ""
        try session.waitForScreen(containing: "row 1 of 50 · live\(suffix)", file: file, line: line)
        try session.send("j", "j")
        try session.waitForScreen(containing: "row 3 of 50", file: file, line: line)
        for (generation, count) in [60, 75, 40].enumerated() {
            try Shell.python(#"""
                import sqlite3, sys
                primary = sqlite3.connect(":memory:")
                primary.execute("CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price INTEGER, note)")
                primary.execute("CREATE INDEX item_name ON item(name)")
                primary.executemany("INSERT INTO item(name, price) VALUES (?, ?)",
                                    [("item %03d" % i, i * int(sys.argv[3])) for i in range(1, int(sys.argv[2]) + 1)])
                primary.execute("CREATE TABLE other(x)")
                primary.commit()
                replica = sqlite3.connect(sys.argv[1])
                primary.backup(replica)
                replica.close()
                """#, [restored.path, "\(count)", "\(generation + 2)"])
            // The selection stays on its row, "item 003", whose price
            // changed with the generation.
            try session.waitForScreen(containing: "row 3 of \(count) · live\(suffix)", file: file, line: line)
            let price = "\(3 * (generation + 2))"
            try session.waitForScreen("item 003 at \(price)", file: file, line: line) { screen in
                screen.components(separatedBy: "\n").contains { row in
                    row.contains("item 003 ") && row.split(separator: " ").contains { $0 == price }
                }
            }
        }
        XCTAssertEqual(try sqlite(restored, "PRAGMA integrity_check"), "ok", file: file, line: line)
        try session.send("q")
        try waitForExit(session, status: 0, file: file, line: line)
    }

    // MARK: - Support

    private func makeMount(directIO: Bool = true) throws -> FuseMount {
        let mount = try FuseMount(in: directory.appendingPathComponent("fuse", isDirectory: true), directIO: directIO)
        self.mount = mount
        return mount
    }

    /// A file of `item` (50 rows, "item 001"…, an index on name) and an
    /// empty `other`, in `mode` (a journal mode: "delete" or "wal").
    private func makeFile(in directory: URL, mode: String = "delete") throws -> URL {
        let file = directory.appendingPathComponent("app.sqlite")
        try Shell.python(#"""
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1])
            c.execute("PRAGMA journal_mode=" + sys.argv[2])
            c.execute("CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price INTEGER, note)")
            c.execute("CREATE INDEX item_name ON item(name)")
            c.executemany("INSERT INTO item(name, price) VALUES (?, ?)", [("item %03d" % i, i) for i in range(1, 51)])
            c.execute("CREATE TABLE other(x)")
            c.commit()
            c.close()
            """#, [file.path, mode])
        return file
    }
}
