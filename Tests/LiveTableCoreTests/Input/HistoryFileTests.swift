import XCTest
@testable import LiveTableCore

/// The query history kept between runs: where it is, who may read it, and
/// queries that span lines.
final class HistoryFileTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("history-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    func testTheFileIsUnderXDGStateHomeElseHome() {
        XCTAssertEqual(HistoryFile.standard(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"])?.url.path,
                       "/s/livetable/history")
        // A relative XDG_STATE_HOME is ignored, as the specification says.
        XCTAssertEqual(HistoryFile.standard(environment: ["XDG_STATE_HOME": "s", "HOME": "/h"])?.url.path,
                       "/h/.local/state/livetable/history")
        XCTAssertNil(HistoryFile.standard(environment: [:]))
    }

    func testQueriesComeBackOldestFirstOnceEachAndOnlyTheOwnerMayReadThem() throws {
        let file = HistoryFile(url: directory.appendingPathComponent("livetable/history"))
        XCTAssertEqual(file.load().lines, [])
        let multiline = "SELECT *\nFROM t\r\nWHERE a = '\\n' -- \\\\"
        try file.record("SELECT 1")
        try file.record(multiline)
        try file.record("SELECT 1")
        XCTAssertEqual(file.load().lines, [multiline, "SELECT 1"])
        let text = try String(contentsOf: file.url, encoding: .utf8)
        XCTAssertEqual(text.split(separator: "\n").count, 2, text)
        let attributes = try FileManager.default.attributesOfItem(atPath: file.url.path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        let folder = try FileManager.default.attributesOfItem(atPath: file.url.deletingLastPathComponent().path)
        XCTAssertEqual((folder[.posixPermissions] as? NSNumber)?.intValue, 0o700)
        // Nothing is left beside it.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: file.url.deletingLastPathComponent().path),
                       ["history"])
    }

    func testTheOldestQueriesGoPastTheLimit() throws {
        var file = HistoryFile(url: directory.appendingPathComponent("history"))
        file.limit = 3
        for number in 1...5 {
            try file.record("SELECT \(number)")
        }
        XCTAssertEqual(file.load().lines, ["SELECT 3", "SELECT 4", "SELECT 5"])
    }

    func testAFolderThatCanNotBeWrittenThrows() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // A file where the folder should be.
        XCTAssertTrue(FileManager.default.createFile(atPath: directory.appendingPathComponent("livetable").path, contents: Data()))
        let file = HistoryFile(url: directory.appendingPathComponent("livetable/history"))
        XCTAssertThrowsError(try file.record("SELECT 1"))
    }
}
