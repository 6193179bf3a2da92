import Foundation
import XCTest

/// The folders of `Sources/LiveTableCore` keep Docs/Architecture.md's rule:
/// a lower folder (`Utils`, `Screen`, `Input`, `Rows`, `Loop`, `Changes`)
/// never names a screen's types; `HallOfFame/` and `Viewer/` never name each
/// other's; `Demo/` may use both.
///
/// The check reads the sources: the names a screen declares at the top level
/// of its files (`struct`, `enum`, `class`, `protocol`, `typealias`, `actor`,
/// `func`; not `private` or `fileprivate` ones, which no other file can
/// name), then each use of one of them, as a whole word and not as a member
/// (`.update(db)` is GRDB's), in the files of the folders that may not name
/// it. Comments and string literals are skipped.
final class FolderRuleTests: XCTestCase {
    private static let lowerFolders = ["Utils", "Screen", "Input", "Rows", "Loop", "Changes"]
    private static let screens = ["HallOfFame", "Viewer"]

    func testNoFolderNamesTheTypesOfAScreenAboveOrBesideIt() throws {
        let core = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/LiveTableCore")
        let sources = try Self.sources(in: core)
        let folders = Set(sources.keys.map(Self.folder(of:)))
        XCTAssertEqual(
            folders, Set(Self.lowerFolders + Self.screens + ["Demo"]),
            "Sources/LiveTableCore has a folder the rule does not place")
        XCTAssertFalse(Self.declaredNames(in: "HallOfFame", sources).isEmpty)
        XCTAssertFalse(Self.declaredNames(in: "Viewer", sources).isEmpty)

        let violations = Self.violations(sources)
        XCTAssertEqual(violations, [], "\n" + violations.joined(separator: "\n"))
    }

    /// The check itself finds a viewer file that names a Hall of Fame type,
    /// and a lower folder that names a viewer type; and it lets a comment,
    /// a string, a member and the demo through.
    func testTheCheckFindsAViewerFileNamingAHallOfFameType() {
        let sources = [
            "HallOfFame/HallOfFameState.swift": "public struct HallOfFameState: Equatable {\n}\nfunc hallOfFameUpdate() { }\n",
            "Viewer/ViewerState.swift": "struct ViewerState {\n    var other: HallOfFameState?\n}\n",
            "Viewer/ViewerRender.swift": """
                // hallOfFameUpdate is not called here
                /* HallOfFameState, neither */
                let title = "HallOfFameState"
                func viewerRender(_ x: X) { x.hallOfFameUpdate() }
                """,
            "Rows/RowSource.swift": "struct RowSource {\n}\nextension ViewerState { }\n",
            "Demo/DemoScript.swift": "let a: HallOfFameState? = nil\nlet b: ViewerState? = nil\n",
        ]
        XCTAssertEqual(Self.violations(sources), [
            "Rows/RowSource.swift:3: ViewerState (Viewer)",
            "Viewer/ViewerState.swift:2: HallOfFameState (HallOfFame)",
        ])
    }

    // MARK: - A database kind is a folder

    /// SQLite's C library, PostgreSQL's client, GRDB's connection types and
    /// the types of each database's folder stay in their folders; the
    /// viewer's folder holds the screen and the folders `DataSource`,
    /// `SQLite` and `Postgres`. The one factory (`livetable/Launch.swift`)
    /// and the demo (`livetable/Demo.swift`, which opens its own SQLite
    /// shop) may name both databases' types.
    func testEachDatabaseStaysInItsFolder() throws {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let core = root.appendingPathComponent("Sources/LiveTableCore")
        var sources = try Self.sources(in: core)
        for (path, text) in try Self.sources(in: root.appendingPathComponent("Sources/livetable")) {
            sources["../livetable/" + path] = text
        }
        XCTAssertFalse(Self.declaredTypes(under: "Viewer/SQLite/", sources).isEmpty)
        XCTAssertFalse(Self.declaredTypes(under: "Viewer/Postgres/", sources).isEmpty)
        let violations = Self.databaseViolations(sources)
        XCTAssertEqual(violations, [], "\n" + violations.joined(separator: "\n"))

        let viewer = try FileManager.default.contentsOfDirectory(atPath: core.appendingPathComponent("Viewer").path)
        XCTAssertEqual(Self.viewerFolderViolations(viewer), [])
    }

    /// Each rule of `testEachDatabaseStaysInItsFolder` finds a made-up
    /// violation, and lets a comment, a string and the allowed folders through.
    func testTheDatabaseCheckFindsEachViolation() {
        let sources = [
            "Viewer/SQLite/SQLiteDataSource.swift": "import CSQLite\npublic struct SQLiteDataSource {\n    let db: Database\n}\n",
            "Viewer/Postgres/PostgresDataSource.swift": "import PostgresClient\nfinal class PostgresReadSession { }\n",
            "Rows/RowSource.swift": "import CSQLite\n// sqlite3_prepare, DatabaseQueue, SQLiteDataSource\nlet a = sqlite3_open\nlet s = \"Row\"\n",
            "Rows/RowWindow.swift": "func fetch(_ db: Database, _ r: any DatabaseReader) { }\n",
            "Viewer/ViewerProgram.swift": "import PostgresClient\nlet source: SQLiteDataSource\nlet session: PostgresReadSession\n",
            "Changes/WindowSnapshot.swift": "struct WindowSnapshot {\n    struct Row { }\n    var rows: [Row]\n}\n",
            "HallOfFame/Database/AppDatabase.swift": "let queue: DatabaseQueue\n",
            "Rows/SQLite/StoredText.swift": "import CSQLite\nlet n = sqlite3_column_bytes\nlet d: Database\n",
            "../livetable/Launch.swift": "let a: SQLiteDataSource\nlet b: PostgresDataSource\n",
            "../livetable/ViewCommand.swift": "let a: SQLiteDataSource\n",
            "../livetable/PostgresOptions.swift": "import PostgresClient\n",
            "../livetable/CommandLinePasswords.swift": "import PostgresClient\n",
        ]
        XCTAssertEqual(Self.databaseViolations(sources), [
            "../livetable/PostgresOptions.swift:1: import PostgresClient",
            "../livetable/ViewCommand.swift:1: SQLiteDataSource (Viewer/SQLite/)",
            "Rows/RowSource.swift:1: SQLite's C library",
            "Rows/RowSource.swift:3: SQLite's C library",
            "Rows/RowWindow.swift:1: GRDB's Database",
            "Rows/RowWindow.swift:1: GRDB's DatabaseReader",
            "Viewer/ViewerProgram.swift:1: import PostgresClient",
            "Viewer/ViewerProgram.swift:2: SQLiteDataSource (Viewer/SQLite/)",
            "Viewer/ViewerProgram.swift:3: PostgresReadSession (Viewer/Postgres/)",
        ])
        XCTAssertEqual(
            Self.viewerFolderViolations(["ViewerState.swift", "DataSource", "SQLite", "Postgres", "Database"]),
            ["Viewer/Database"])
    }

    /// Where SQLite's C library may be named.
    private static let sqliteFolders = ["Rows/SQLite/", "Viewer/SQLite/"]
    /// Where GRDB's connection types may be named: the SQLite folders, the
    /// Hall of Fame's database and the demo's.
    private static let grdbFolders = sqliteFolders + ["HallOfFame/Database/", "Demo/"]
    private static let grdbConnectionTypes: Set = [
        "Database", "DatabaseReader", "DatabaseQueue", "DatabasePool", "Statement", "Row"]
    /// The files that may name the types of both database folders: the
    /// factory, and the demo's host.
    private static let factories = ["../livetable/Launch.swift", "../livetable/Demo.swift"]

    /// The executable's one other user of PostgreSQL's client: the
    /// password of a connection string cut out with libpq's own parse.
    private static let postgresClientUsers = ["../livetable/CommandLinePasswords.swift"]

    /// "file:line: what" for each database word out of its folder, sorted.
    /// The rules on SQLite's C library and GRDB hold in the core; those on
    /// PostgreSQL's client and the folders' types, in the executable too.
    private static func databaseViolations(_ sources: [String: String]) -> [String] {
        let folderTypes = ["Viewer/SQLite/", "Viewer/Postgres/"].map { ($0, declaredTypes(under: $0, sources)) }
        var found: [String] = []
        for (path, text) in sources {
            let inCore = !path.hasPrefix("../")
            let inSQLite = sqliteFolders.contains { path.hasPrefix($0) }
            let mayUseGRDB = grdbFolders.contains { path.hasPrefix($0) }
            // A file's own types (`WindowSnapshot.Row`) are not GRDB's.
            let ownTypes = declaredTypes(under: path, [path: text], nested: true)
            for (index, line) in code(text).enumerated() {
                let at = "\(path):\(index + 1)"
                let words = identifiers(in: line)
                if inCore, !inSQLite, line.contains("CSQLite") || line.contains("sqlite3_") {
                    found.append("\(at): SQLite's C library")
                }
                if !path.hasPrefix("Viewer/Postgres/"), !postgresClientUsers.contains(path),
                   line.contains("import PostgresClient") {
                    found.append("\(at): import PostgresClient")
                }
                if inCore, !mayUseGRDB {
                    for name in grdbConnectionTypes.subtracting(ownTypes).intersection(words).sorted() {
                        found.append("\(at): GRDB's \(name)")
                    }
                }
                for (folder, types) in folderTypes where !path.hasPrefix(folder) && !factories.contains(path) {
                    for name in types.intersection(words).sorted() {
                        found.append("\(at): \(name) (\(folder))")
                    }
                }
            }
        }
        return found.sorted()
    }

    /// The types declared at the top level of the files under `prefix`
    /// (or at any level, with `nested`).
    private static func declaredTypes(under prefix: String, _ sources: [String: String], nested: Bool = false) -> Set<String> {
        names(declaredBy: ["struct", "enum", "class", "protocol", "typealias", "actor"], nested: nested,
              in: sources.filter { $0.key.hasPrefix(prefix) })
    }

    /// The names that `keywords` declare in `sources`, at the top level (or
    /// at any level, with `nested`).
    private static func names(declaredBy keywords: [String], nested: Bool, in sources: [String: String]) -> Set<String> {
        let declaration = try! NSRegularExpression(pattern: """
            ^\(nested ? "\\s*" : "")(?:@\\w+(?:\\([^)]*\\))?\\s+)*\
            (?:(?:public|internal|package|final|indirect|nonisolated)\\s+)*\
            (?:\(keywords.joined(separator: "|")))\\s+([A-Za-z_]\\w*)
            """)
        var names: Set<String> = []
        for text in sources.values {
            for line in code(text) {
                let range = NSRange(line.startIndex..., in: line)
                if let match = declaration.firstMatch(in: line, range: range),
                   let name = Range(match.range(at: 1), in: line) {
                    names.insert(String(line[name]))
                }
            }
        }
        return names
    }

    /// The folders of `Viewer/` (given its listing) that are not the
    /// screen's own: `DataSource`, `SQLite`, `Postgres`, and `Sheets` for
    /// the sheets the viewer writes.
    private static func viewerFolderViolations(_ listing: [String]) -> [String] {
        listing.filter { !$0.hasSuffix(".swift") && !["DataSource", "SQLite", "Postgres", "Sheets"].contains($0) }
            .map { "Viewer/" + $0 }.sorted()
    }

    // MARK: - The check

    /// The folders whose names `folder`'s files may not use.
    private static func forbiddenScreens(for folder: String) -> [String] {
        if lowerFolders.contains(folder) { return screens }
        if folder == "HallOfFame" { return ["Viewer"] }
        if folder == "Viewer" { return ["HallOfFame"] }
        return []
    }

    /// "file:line: Name (Screen)" for each use of a screen's name where the
    /// rule forbids it, sorted.
    private static func violations(_ sources: [String: String]) -> [String] {
        let names = Dictionary(uniqueKeysWithValues: screens.map { ($0, declaredNames(in: $0, sources)) })
        var found: [String] = []
        for (path, text) in sources {
            let forbidden = forbiddenScreens(for: folder(of: path))
            guard !forbidden.isEmpty else { continue }
            for (index, line) in code(text).enumerated() {
                let words = identifiers(in: line)
                for screen in forbidden {
                    for name in names[screen]!.intersection(words).sorted() {
                        found.append("\(path):\(index + 1): \(name) (\(screen))")
                    }
                }
            }
        }
        return found.sorted()
    }

    /// The names declared at the top level of the files of `folder`, its
    /// subfolders included.
    private static func declaredNames(in folder: String, _ sources: [String: String]) -> Set<String> {
        names(declaredBy: ["struct", "enum", "class", "protocol", "typealias", "actor", "func"], nested: false,
              in: sources.filter { self.folder(of: $0.key) == folder })
    }

    /// The identifiers of a line of code, except those after a dot
    /// (members, and names qualified by a module).
    private static func identifiers(in line: String) -> Set<String> {
        var words: Set<String> = []
        var current = ""
        var afterDot = false
        for character in line + " " {
            if character.isLetter || character.isNumber || character == "_" {
                current.append(character)
            } else {
                if !current.isEmpty, !afterDot, !(current.first!.isNumber) { words.insert(current) }
                if !current.isEmpty || !character.isWhitespace { afterDot = character == "." }
                current = ""
            }
        }
        return words
    }

    /// The lines of `text` with comments and string literals blanked out,
    /// line numbers kept.
    static func code(_ text: String) -> [String] {
        SwiftSource.lines(text).map(\.code)
    }

    /// The top folder of a path relative to the core's sources.
    private static func folder(of path: String) -> String {
        String(path.prefix { $0 != "/" })
    }

    /// Each Swift file under `core`, by its path relative to `core`.
    private static func sources(in core: URL) throws -> [String: String] {
        try SwiftSource.files(under: core)
    }
}

/// The sources stay readable in pieces: no function in `Sources` is over
/// 100 lines (except a benchmark's `run`, which reads as one script) and no
/// file is over 600 lines.
///
/// A function's length runs from its `func` or `init` line to the brace
/// that closes its body, found by matching braces in the code with its
/// comments and strings blanked out (`FolderRuleTests.code`).
final class SourceSizeTests: XCTestCase {
    static let maximumFunctionLines = 100
    static let maximumFileLines = 600

    func testNoFunctionIsOver100LinesAndNoFileOver600() throws {
        let sources = try SwiftSource.files()
        XCTAssertGreaterThan(sources.count, 50)
        let violations = Self.violations(sources)
        XCTAssertEqual(violations, [], "\n" + violations.joined(separator: "\n"))
    }

    /// The check itself finds a long function and a long file, matching
    /// braces across strings and comments, and lets a benchmark's `run`
    /// and a body-less requirement through.
    func testTheCheckFindsALongFunctionAndALongFile() {
        let body = Array(repeating: "    let a = \"}\" // }", count: 99).joined(separator: "\n")
        let long = "func long() {\n" + body + "\n}\n"
        let shortBody = Array(repeating: "    let b = 1", count: 96).joined(separator: "\n")
        let short = "func short(\n    x: Int = { 1 }()\n) {\n" + shortBody + "\n}\n" // 100 lines
        let sources = [
            "LiveTableCore/A.swift": "protocol P {\n    func f()\n}\n" + long,
            "LiveTableCore/B.swift": short,
            "LiveTableCore/C.swift": String(repeating: "\n", count: 601),
            "LiveTableBenchmark/Bench.swift": "struct B {\n    func run() {\n" + body + "\n\n}\n}\n",
        ]
        XCTAssertEqual(Self.violations(sources), [
            "LiveTableCore/A.swift:4: long is 101 lines",
            "LiveTableCore/C.swift: 601 lines",
        ])
    }

    /// "path:line: name is N lines" and "path: N lines", sorted.
    static func violations(_ sources: [String: String]) -> [String] {
        var found: [String] = []
        for (path, text) in sources {
            let isBenchmark = path.hasPrefix("LiveTableBenchmark/")
            let lines = text.components(separatedBy: "\n")
            let count = text.hasSuffix("\n") ? lines.count - 1 : lines.count
            if count > maximumFileLines {
                found.append("\(path): \(count) lines")
            }
            for function in functions(in: FolderRuleTests.code(text))
            where function.lines > maximumFunctionLines && !(isBenchmark && function.name == "run") {
                found.append("\(path):\(function.line): \(function.name) is \(function.lines) lines")
            }
        }
        return found.sorted()
    }

    /// Each function (`func`, `init`) with a body: its name, first line
    /// (1-based) and length in lines.
    static func functions(in code: [String]) -> [(name: String, line: Int, lines: Int)] {
        let declaration = try! NSRegularExpression(pattern: "(?:^|[^\\w.])(?:func\\s+([^\\s(<]+)|(init)[?!]?\\s*[(<])")
        var found: [(name: String, line: Int, lines: Int)] = []
        for (index, line) in code.enumerated() {
            let range = NSRange(line.startIndex..., in: line)
            guard let match = declaration.firstMatch(in: line, range: range) else { continue }
            let nameRange = match.range(at: 1).location != NSNotFound ? match.range(at: 1) : match.range(at: 2)
            guard let name = Range(nameRange, in: line).map({ String(line[$0]) }),
                  let start = Range(match.range, in: line)?.upperBound,
                  let end = bodyEnd(in: code, line: index, from: start)
            else { continue }
            found.append((name, index + 1, end - index + 1))
        }
        return found
    }

    /// The index of the line that closes the body of the function declared
    /// at `line`, or nil when it has none (a protocol's requirement).
    private static func bodyEnd(in code: [String], line: Int, from start: String.Index) -> Int? {
        var parentheses = 0
        var braces = 0
        var index = line
        var position: String.Index? = start
        while index < code.count {
            let text = code[index]
            var character = position ?? text.startIndex
            if braces == 0, parentheses == 0, index > line,
               text.range(of: "^\\s*(?:[@\\w ]*\\s)?(?:func|var|let|init|case|subscript)\\b", options: .regularExpression) != nil {
                return nil
            }
            while character < text.endIndex {
                switch text[character] {
                case "(", "[": parentheses += 1
                case ")", "]": parentheses -= 1
                case "{": braces += 1
                case "}":
                    if braces == 0 { return nil } // the end of a protocol
                    braces -= 1
                    if braces == 0, parentheses == 0 { return index }
                default: break
                }
                character = text.index(after: character)
            }
            position = nil
            index += 1
        }
        return nil
    }
}
