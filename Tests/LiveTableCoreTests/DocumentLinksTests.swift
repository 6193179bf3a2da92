import Foundation
import XCTest

/// The README is a front page that links to the manuals of `Docs/`: every
/// relative link of those documents leads to a file that exists, and every
/// anchor to a heading of its file, as GitHub renders them.
final class DocumentLinksTests: XCTestCase {
    /// The package's root directory.
    private let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func testEveryRelativeLinkOfTheDocumentsResolves() throws {
        let documents = try Self.documents(in: root)
        XCTAssertTrue(documents.contains("README.md"))
        XCTAssertTrue(documents.contains("Docs/Architecture.md"))
        var broken: [String] = []
        for document in documents {
            let text = try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8)
            for link in Self.links(in: text) {
                if let problem = try Self.problem(with: link, in: document, root: root) {
                    broken.append("\(document): (\(link)) \(problem)")
                }
            }
        }
        XCTAssertEqual(broken, [], "broken links")
    }

    func testReadmeIsAFrontPageOfAtMost15KB() throws {
        let size = try XCTUnwrap(
            FileManager.default.attributesOfItem(atPath: root.appendingPathComponent("README.md").path)[.size] as? Int)
        XCTAssertLessThanOrEqual(size, 15 * 1024, "README.md is \(size) bytes: move the details to Docs/")
    }

    func testAnchorsAreGitHubSlugsOfTheHeadings() {
        let text = """
            # LiveTable
            ## The viewer
            ```sh
            # bash (with the bash-completion package)
            ```
            ### `@MainActor` code
            ### `DatabaseReader.rx.read(observeOn:value:)`
            ## The viewer
            Documentation
            =============
            """
        XCTAssertEqual(Self.anchors(in: text), [
            "livetable", "the-viewer", "mainactor-code",
            "databasereaderrxreadobserveonvalue", "the-viewer-1", "documentation",
        ])
    }

    func testLinksInCodeAreNotLinks() {
        let text = """
            See [the guide](Docs/ReactiveGRDB.md#linux-notes) and ![a screen](screenshots/main.png "Main").
            `[not](a-link)` and [a page](https://example.com).
            ```swift
            let x = a[i](j)
            ```
            """
        XCTAssertEqual(Self.links(in: text), [
            "Docs/ReactiveGRDB.md#linux-notes", "screenshots/main.png", "https://example.com",
        ])
    }

    // MARK: - Reading Markdown

    /// README.md and the Markdown files of Docs/, relative to `root`.
    private static func documents(in root: URL) throws -> [String] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Docs").path)
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "Docs/\($0)" }
    }

    /// The lines of `text` outside fenced code blocks.
    private static func prose(_ text: String) -> [String] {
        var inFence = false
        var lines: [String] = []
        for line in text.components(separatedBy: "\n") {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                inFence.toggle()
            } else if !inFence {
                lines.append(line)
            }
        }
        return lines
    }

    /// The targets of the inline links and images of `text`, outside code.
    private static func links(in text: String) -> [String] {
        let pattern = try! NSRegularExpression(pattern: #"\]\(\s*([^()\s]+)(?:\s+"[^"]*")?\s*\)"#)
        let codeSpan = try! NSRegularExpression(pattern: "`[^`]*`")
        return prose(text).flatMap { line -> [String] in
            let line = codeSpan.stringByReplacingMatches(
                in: line, range: NSRange(line.startIndex..., in: line), withTemplate: "``")
            return pattern.matches(in: line, range: NSRange(line.startIndex..., in: line)).map {
                String(line[Range($0.range(at: 1), in: line)!])
            }
        }
    }

    /// The anchors GitHub gives the headings of `text`: lowercased, without
    /// punctuation, spaces made hyphens, and `-1`, `-2`… after a repeated one.
    private static func anchors(in text: String) -> [String] {
        var seen: [String: Int] = [:]
        return headings(in: text).map { title -> String in
            let slug = String(String.UnicodeScalarView(title.lowercased().unicodeScalars.compactMap { scalar in
                if scalar == " " { return "-" }
                if scalar == "-" || scalar == "_" || CharacterSet.alphanumerics.contains(scalar) { return scalar }
                return nil
            }))
            defer { seen[slug, default: 0] += 1 }
            return seen[slug].map { "\(slug)-\($0)" } ?? slug
        }
    }

    /// The titles of the headings of `text`, outside code: `## Title`, and
    /// a line underlined with `===` or `---`.
    private static func headings(in text: String) -> [String] {
        var titles: [String] = []
        var previous: String?
        for line in prose(text) {
            let hashes = line.prefix { $0 == "#" }
            if (1...6).contains(hashes.count), line.dropFirst(hashes.count).first == " " {
                titles.append(line.dropFirst(hashes.count).trimmingCharacters(in: .whitespaces))
                previous = nil
                continue
            }
            let underline = line.trimmingCharacters(in: .whitespaces)
            if let title = previous, !underline.isEmpty, Set(underline) == ["="] || Set(underline) == ["-"] {
                titles.append(title)
                previous = nil
                continue
            }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            previous = trimmed.isEmpty || trimmed.hasPrefix("|") ? nil : trimmed
        }
        return titles
    }

    /// Why `link`, written in `document`, leads nowhere; nil when it leads
    /// to an existing file (and heading), or is not relative.
    private static func problem(with link: String, in document: String, root: URL) throws -> String? {
        if link.contains("://") || link.hasPrefix("mailto:") {
            return nil
        }
        let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(parts[0])
        let anchor = parts.count > 1 ? String(parts[1]) : nil
        let base = root.appendingPathComponent(document).deletingLastPathComponent()
        let target = path.isEmpty
            ? root.appendingPathComponent(document)
            : base.appendingPathComponent(path.removingPercentEncoding ?? path).standardizedFileURL
        guard FileManager.default.fileExists(atPath: target.path) else {
            return "no such file"
        }
        guard let anchor else { return nil }
        guard target.pathExtension == "md" else { return "an anchor in a file that is not Markdown" }
        let text = try String(contentsOf: target, encoding: .utf8)
        return anchors(in: text).contains(anchor) ? nil : "no heading #\(anchor) in \(target.lastPathComponent)"
    }
}
