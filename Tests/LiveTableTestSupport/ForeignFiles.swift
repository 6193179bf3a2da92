import Foundation
import XCTest

/// Database files made by another program than livetable (the `sqlite3`
/// CLI), and the checks that the viewer left them untouched.
public enum ForeignFile {
    /// A tool that failed, with what it printed.
    public struct ToolError: Error, CustomStringConvertible {
        public var description: String

        public init(description: String) {
            self.description = description
        }
    }

    /// Runs `sqlite3 path` with `sql` on its standard input, and returns
    /// its standard output. Throws if it fails. Like any other program
    /// that shares a file, it waits up to 5 s for a lock held by a reader
    /// or writer of the file (`.timeout`), rather than fail at once.
    @discardableResult
    public static func sqlite3(_ path: String, _ sql: String) throws -> String {
        try run("/usr/bin/sqlite3", ["-batch", "-bail", "-cmd", ".timeout 5000", path], input: sql)
    }

    /// The SHA-256 of the file, by `sha256sum`.
    public static func sha256(_ path: String) throws -> String {
        let output = try run("/usr/bin/sha256sum", [path], input: "")
        return String(output.prefix { $0 != " " })
    }

    /// The names in `directory`, sorted.
    public static func listing(_ directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    /// The size of the file at `path`, or nil when it does not exist.
    public static func size(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
    }

    private static func run(_ executable: String, _ arguments: [String], input: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let error = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ToolError(description: "\(executable) \(arguments.joined(separator: " ")): "
                + (String(data: error, encoding: .utf8) ?? "exit \(process.terminationStatus)"))
        }
        return String(decoding: output, as: UTF8.self)
    }
}

/// A snapshot of a database file and its directory, to check that a
/// reader changed nothing.
public struct FileSnapshot: Equatable {
    /// The SHA-256 of the file, by `sha256sum`.
    public var sha256: String
    /// The names in the file's directory, sorted.
    public var listing: [String]

    /// Takes the snapshot of the file at `path`.
    public init(_ path: String) throws {
        sha256 = try ForeignFile.sha256(path)
        listing = try ForeignFile.listing(URL(fileURLWithPath: path).deletingLastPathComponent())
    }
}

extension XCTestCase {
    /// Makes, with the sqlite3 CLI, a file `items.sqlite` in a new temporary
    /// directory (removed when the test ends), whose table `item(id INTEGER PRIMARY KEY, name, price)`
    /// holds `count` rows named "item 001"… (as wide as `count`), priced
    /// 10, 20…; with an index on price when `indexed`, and `extra` SQL
    /// run after. Returns its path.
    public func makeItemsFile(count: Int, indexed: Bool = true, extra: String = "") throws -> String {
        let path = try makeTemporaryDirectory().appendingPathComponent("items.sqlite").path
        let digits = String(count).count
        try ForeignFile.sqlite3(path, """
            CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price INTEGER);
            \(indexed ? "CREATE INDEX item_price ON item(price);" : "")
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))
            INSERT INTO item(name, price) SELECT printf('item %0\(digits)d', i), i * 10 FROM n;
            \(extra)
            """)
        return path
    }
}
