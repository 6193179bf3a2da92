import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// Opening any SQLite file for reading only: files made by the sqlite3 CLI
/// are never changed, and bad files get one-line errors.
final class SQLiteOpeningTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory()
    }

    private func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    /// Reads everything the viewer reads: the schema, counts, windows both
    /// ways, a query.
    private func readEverything(_ database: SQLiteDataSource) throws {
        try database.read { db in
            for table in try TableSchema.all(db) {
                let source = RowSource.table(table, dialect: .sqlite)
                _ = try source.quickRowCount(db)
                _ = try source.exactRowCount(db)
                let ordering = try RowOrdering(source, sortColumn: table.columns.first?.name, descending: true)
                _ = try ordering.cost(of: source, in: db)
                _ = try RowWindow.fetch(db, source, RowWindowRequest(ordering: ordering, anchor: .first, before: 0, after: 5))
                let last = try RowWindow.fetch(db, source, RowWindowRequest(ordering: ordering, anchor: .last, before: 5, after: 5))
                if let position = last.positions.first {
                    _ = try RowWindow.fetch(db, source, RowWindowRequest(
                        ordering: ordering, anchor: .position(position), before: 3, after: 3))
                }
            }
            _ = try RowSource.query("SELECT count(*) FROM sqlite_schema", in: db)
        }
        _ = try database.read(background: true) { db in try TableSchema.all(db) }
    }

    // MARK: - Never touched

    func testRollbackJournalFileIsUnchangedAndGetsNoWAL() throws {
        let file = path("app.sqlite")
        try ForeignFile.sqlite3(file, """
            CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price REAL);
            INSERT INTO item(name, price) VALUES ('pen', 1.5), ('ink', NULL), ('book', 12);
            """)
        let before = try FileSnapshot(file)
        XCTAssertEqual(before.listing, ["app.sqlite"])

        let database = try SQLiteDataSource.open(path: file)
        try readEverything(database)
        XCTAssertEqual(try FileSnapshot(file), before, "while open")
        try database.reader.close()
        try database.backgroundReader.close()

        XCTAssertEqual(try FileSnapshot(file), before)
        XCTAssertEqual(try ForeignFile.sqlite3(file, "PRAGMA journal_mode;"), "delete\n")
    }

    func testWALFileIsUnchangedAndItsWALStaysEmpty() throws {
        let file = path("app.sqlite")
        try ForeignFile.sqlite3(file, """
            PRAGMA journal_mode = WAL;
            CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT);
            INSERT INTO item(name) VALUES ('pen'), ('ink');
            """)
        let sha256 = try ForeignFile.sha256(file)

        let database = try SQLiteDataSource.open(path: file)
        try readEverything(database)
        try database.reader.close()
        try database.backgroundReader.close()

        XCTAssertEqual(try ForeignFile.sha256(file), sha256)
        // SQLite's read-only connections need the -wal and -shm files, and
        // leave them; but nothing is written to the -wal.
        XCTAssertEqual(ForeignFile.size(file + "-wal") ?? 0, 0)
        XCTAssertEqual(try ForeignFile.sqlite3(file, "PRAGMA journal_mode;"), "wal\n")
    }

    func testReadOnlyFileInReadOnlyDirectoryIsReadAndUnchanged() throws {
        let file = path("app.sqlite")
        try ForeignFile.sqlite3(file, """
            CREATE TABLE t(a, b);
            WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 99)
            INSERT INTO t SELECT i, CAST(i AS TEXT) FROM n;
            """)
        XCTAssertEqual(chmod(file, 0o444), 0)
        XCTAssertEqual(chmod(directory.path, 0o555), 0)
        let before = try FileSnapshot(file)

        let database = try SQLiteDataSource.open(path: file)
        try readEverything(database)
        XCTAssertEqual(try database.read { try RowSource.table(TableSchema.named("t", in: $0), dialect: .sqlite).exactRowCount($0) }, 100)
        try database.reader.close()
        try database.backgroundReader.close()
        XCTAssertEqual(try FileSnapshot(file), before)
    }

    func testConnectionsRefuseWrites() throws {
        let file = path("app.sqlite")
        try ForeignFile.sqlite3(file, "CREATE TABLE t(a);")
        let before = try FileSnapshot(file)
        let database = try SQLiteDataSource.open(path: file)
        for reader in [database.reader, database.backgroundReader] {
            // The authorizer refuses a write before it runs; the
            // connection is read-only besides.
            XCTAssertTrue(reader.configuration.readonly)
            XCTAssertThrowsError(try reader.writeWithoutTransaction { db in
                try db.execute(sql: "INSERT INTO t VALUES (1)")
            }) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_AUTH)
            }
            XCTAssertThrowsError(try reader.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA journal_mode = WAL")
            })
        }
        XCTAssertEqual(try FileSnapshot(file), before)
        XCTAssertEqual(try ForeignFile.sqlite3(file, "PRAGMA journal_mode;"), "delete\n")
    }

    func testNoReadTransactionOutlivesARead() throws {
        // A writer that does not wait (.timeout 0) can commit to a
        // rollback-journal file after each read: no lock is kept.
        let file = path("app.sqlite")
        try ForeignFile.sqlite3(file, "CREATE TABLE t(a); INSERT INTO t VALUES (1), (2), (3);")
        let database = try SQLiteDataSource.open(path: file)
        for value in 4...6 {
            try readEverything(database)
            try ForeignFile.sqlite3(file, ".timeout 0\nINSERT INTO t VALUES (\(value));")
        }
        XCTAssertEqual(try database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") }, 6)
    }

    // MARK: - Bad files

    func testMissingFile() throws {
        let file = path("missing.sqlite")
        XCTAssertThrowsError(try SQLiteDataSource.open(path: file)) { error in
            XCTAssertEqual(error as? SourceError, .missingFile(path: file))
            XCTAssertEqual("\(error)", "cannot open \"\(file)\": no such file")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: file), "no file is created")
    }

    func testMissingDirectory() throws {
        let file = path("nowhere/app.sqlite")
        XCTAssertThrowsError(try SQLiteDataSource.open(path: file)) { error in
            XCTAssertEqual(error as? SourceError, .missingFile(path: file))
        }
    }

    func testDirectory() throws {
        XCTAssertThrowsError(try SQLiteDataSource.open(path: directory.path)) { error in
            XCTAssertEqual("\(error)", "cannot open \"\(directory.path)\": it is a directory")
        }
    }

    func testTextFileIsNotADatabase() throws {
        let file = path("notes.txt")
        try "Not a database,\nbut it has more than a hundred bytes of text in it, which SQLite reads as a header.\n"
            .write(toFile: file, atomically: false, encoding: .utf8)
        let before = try FileSnapshot(file)
        XCTAssertThrowsError(try SQLiteDataSource.open(path: file)) { error in
            XCTAssertEqual(error as? SourceError, .notADatabase(path: file))
            XCTAssertEqual("\(error)", "cannot open \"\(file)\": not a SQLite database (or encrypted)")
        }
        XCTAssertEqual(try FileSnapshot(file), before)
    }

    func testEncryptedLookingFileIsNotADatabase() throws {
        // An encrypted database (SQLCipher) is random bytes from the start.
        let file = path("secret.db")
        try Data((0..<8192).map { _ in UInt8.random(in: 0...255) }).write(to: URL(fileURLWithPath: file))
        let before = try FileSnapshot(file)
        XCTAssertThrowsError(try SQLiteDataSource.open(path: file)) { error in
            XCTAssertEqual(error as? SourceError, .notADatabase(path: file))
        }
        XCTAssertEqual(try FileSnapshot(file), before)
    }

    func testEmptyFileIsAnEmptyDatabase() throws {
        let file = path("empty.sqlite")
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data()))
        let database = try SQLiteDataSource.open(path: file)
        XCTAssertEqual(try database.read { try TableSchema.all($0) }, [])
        XCTAssertEqual(ForeignFile.size(file), 0)
    }

    func testFileLockedByAnotherProcessSaysLocked() throws {
        let file = path("app.sqlite")
        try ForeignFile.sqlite3(file, "CREATE TABLE t(a); INSERT INTO t VALUES (1);")
        // The sqlite3 CLI holds an exclusive lock until its standard input
        // closes.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        holder.arguments = ["-batch", file]
        let input = Pipe(), output = Pipe()
        holder.standardInput = input
        holder.standardOutput = output
        try holder.run()
        defer {
            try? input.fileHandleForWriting.close()
            holder.waitUntilExit()
        }
        input.fileHandleForWriting.write(Data("BEGIN EXCLUSIVE;\nSELECT 'locked';\n".utf8))
        // Waits for the lock (a line), not for a fixed time.
        let line = output.fileHandleForReading.availableDataOrLine()
        XCTAssertEqual(line, "locked\n")

        XCTAssertThrowsError(try SQLiteDataSource.open(path: file)) { error in
            XCTAssertEqual(error as? SourceError, .locked(path: file))
            XCTAssertEqual("\(error)", "cannot read \"\(file)\": the database is locked by another process")
        }
    }

    func testHotJournalOfACrashedWriterIsExplained() throws {
        let file = path("app.sqlite")
        try ForeignFile.sqlite3(file, "CREATE TABLE t(a); INSERT INTO t VALUES (1);")
        // A writer killed in the middle of a big transaction: its pages
        // spilled to the file, its journal is hot.
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        writer.arguments = ["-batch", file]
        let input = Pipe(), output = Pipe()
        writer.standardInput = input
        writer.standardOutput = output
        try writer.run()
        input.fileHandleForWriting.write(Data("""
            PRAGMA cache_size = 1;
            BEGIN;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)
            INSERT INTO t SELECT randomblob(1000) FROM n;
            SELECT 'inserted';

            """.utf8))
        XCTAssertEqual(output.fileHandleForReading.availableDataOrLine(), "inserted\n")
        kill(writer.processIdentifier, SIGKILL)
        writer.waitUntilExit()
        XCTAssertTrue(FileManager.default.fileExists(atPath: file + "-journal"))
        let before = try FileSnapshot(file)

        XCTAssertThrowsError(try SQLiteDataSource.open(path: file).read { db in
            try TableSchema.all(db)
        }) { error in
            XCTAssertEqual(error as? SourceError, .needsRecovery(path: file))
        }
        XCTAssertEqual(try FileSnapshot(file), before, "the viewer does not roll back")
        // The next writer does.
        XCTAssertEqual(try ForeignFile.sqlite3(file, "SELECT COUNT(*) FROM t;"), "1\n")
    }

    func testErrorsStayOnOneLine() throws {
        let file = path("a\nb\u{1b}[2J.sqlite")
        XCTAssertThrowsError(try SQLiteDataSource.open(path: file)) { error in
            let text = "\(error)"
            XCTAssertFalse(text.contains("\n"))
            XCTAssertFalse(text.contains("\u{1b}"))
            XCTAssertTrue(text.contains("a\\u{a}b\\u{1b}[2J.sqlite"))
        }
    }
}

extension FileHandle {
    /// Reads until a newline or the end of the file.
    fileprivate func availableDataOrLine() -> String {
        var data = Data()
        while true {
            let byte = readData(ofLength: 1)
            if byte.isEmpty { break }
            data.append(byte)
            if byte == Data([0x0A]) { break }
        }
        return String(decoding: data, as: UTF8.self)
    }
}
