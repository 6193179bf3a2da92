import Foundation
import XCTest

/// Issue 26: the app's comments say why, at the hard places, in at most 0.3
/// comment lines per code line. `scripts/comment-density.sh` prints the same
/// figures without a build.
///
/// A comment line holds only a comment (`//`, `///`, or a line inside
/// `/* */`); a code line is any other non-blank line, a trailing comment
/// included. Strings are code, even when they hold `//`.
final class CommentDensityTests: XCTestCase {
    static let maximumDensity = 0.3

    /// The modules under `Sources` held to the maximum, subfolders
    /// included; each folder of `LiveTableCore` is held too, so that no
    /// corner of it grows behind the module's figure.
    static let heldModules = ["LiveTableCore", "PostgresClient", "livetable"]

    func testHeldFoldersHaveAtMostPoint3CommentLinesPerCodeLine() throws {
        let sources = try Self.sources()
        // Every module and every folder of the core, so that what is left shows.
        let modules = Set(sources.keys.map { String($0.prefix { $0 != "/" }) })
        let coreFolders = Set(sources.keys.filter { $0.hasPrefix("LiveTableCore/") }.map {
            $0.split(separator: "/").prefix(2).joined(separator: "/")
        }.filter { !$0.hasSuffix(".swift") })
        for folder in (modules.union(coreFolders)).sorted() {
            let count = Self.lines(in: folder, sources)
            print("comment density: \(folder): \(Self.describe(count))")
        }

        var over: [String] = []
        for folder in Self.heldModules + coreFolders.sorted() {
            let count = Self.lines(in: folder, sources)
            XCTAssertGreaterThan(count.code, 0, "\(folder) has no code: is the list out of date?")
            if Double(count.comments) > Self.maximumDensity * Double(count.code) {
                over.append("\(folder): \(Self.describe(count))")
            }
        }
        XCTAssertEqual(over, [], "over \(Self.maximumDensity) comment lines per code line:\n" + over.joined(separator: "\n"))
    }

    /// Examples live in the documents, where `scripts/doc-examples.py`
    /// compiles them (issue 26): none in the app's comments, which nothing
    /// compiles.
    func testTheAppsCommentsHoldNoExamples() throws {
        let sources = try Self.sources()
        let held = sources.filter { path, _ in Self.heldModules.contains { path.hasPrefix($0 + "/") } }
        XCTAssertGreaterThan(held.count, 100)
        let withExamples = held.filter { $0.value.contains("/// For example:") }.keys.sorted()
        XCTAssertEqual(withExamples, [], "examples in comments, compiled by nothing")
    }

    /// The count itself: doc, line and block comments, and not a string or
    /// a trailing comment.
    func testTheCountTellsCommentLinesFromCodeLines() {
        let text = """
            /// A doc line.
            // A line comment.
            /* A block
               over lines, /* nested */
               still in it */
            let url = "http://example.com" // code, with a trailing comment

            let text = \"\"\"
                // inside a string
                \"\"\"
            func f() { /* a comment after code */ }
            """
        let count = Self.count(text)
        XCTAssertEqual(count.comments, 5)
        XCTAssertEqual(count.code, 5)
    }

    // MARK: - The count

    static func describe(_ count: (comments: Int, code: Int)) -> String {
        let density = count.code == 0 ? 0 : Double(count.comments) / Double(count.code)
        return String(format: "%.2f (%d comment lines, %d code lines)", density, count.comments, count.code)
    }

    /// The comment and code lines of the files under `folder`.
    static func lines(in folder: String, _ sources: [String: String]) -> (comments: Int, code: Int) {
        var total = (comments: 0, code: 0)
        for (path, text) in sources where path.hasPrefix(folder + "/") {
            let count = count(text)
            total.comments += count.comments
            total.code += count.code
        }
        return total
    }

    static func count(_ text: String) -> (comments: Int, code: Int) {
        let lines = SwiftSource.lines(text)
        return (lines.filter { $0.hasComment && !$0.hasCode }.count, lines.filter(\.hasCode).count)
    }

    private static func sources() throws -> [String: String] {
        try SwiftSource.files()
    }
}
