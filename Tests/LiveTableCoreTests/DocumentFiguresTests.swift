import Foundation
import XCTest

/// The manuals are held to figures (issue 26), as `DocumentLinksTests` holds
/// their links: short sentences, short paragraphs, a heading every screen.
final class DocumentFiguresTests: XCTestCase {
    private let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let averageWords = 20.0
    static let longSentenceWords = 30
    static let longSentenceShare = 0.10
    static let paragraphWords = 150
    static let linesWithoutHeading = 40

    func testEveryDocumentKeepsTheFigures() throws {
        let docs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Docs").path)
        let documents = ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "Docs/\($0)" }
        XCTAssertTrue(documents.contains("Docs/Viewer.md"))
        var problems: [String] = []
        for document in documents {
            let text = try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8)
            problems += Self.problems(of: Self.figures(of: text)).map { "\(document): \($0)" }
        }
        XCTAssertEqual(problems, [], "\n" + problems.joined(separator: "\n"))
    }

    // MARK: - The rules, on samples

    func testSentencesEndAtAStopBeforeANewSentence() {
        let paragraph = """
            Read e.g. the guide, i.e. the manual. It waits 0.5 s for `a.swift`. Then it reads \
            `x. Y` and README.md. Does it? Yes! Order 4 (the last.) Done etc. and more.
            """
        XCTAssertEqual(Self.sentences(in: paragraph), [
            "Read e.g. the guide, i.e. the manual.",
            "It waits 0.5 s for `a.swift`.",
            "Then it reads `x. Y` and README.md.",
            "Does it?",
            "Yes!",
            "Order 4 (the last.)",
            "Done etc. and more.",
        ])
    }

    func testWordsCountACodeSpanOrALinkAsItsWords() {
        XCTAssertEqual(Self.words(in: "See [the guide](Docs/A.md#b) and `a b c` — 2,000 rows."), 7)
    }

    func testCodeTablesHeadingsAndListItemsAreNotOneParagraph() {
        let figures = Self.figures(of: """
            # Title
            One sentence here. And
            another one.

            - an item
              that goes on.
            - a second item.

            | a | b |
            |---|---|
            | 1 | 2 |

            ```swift
            let x = 1. Not a sentence.
            ```
            """)
        XCTAssertEqual(figures.paragraphs.map(\.text), [
            "One sentence here. And another one.", "an item that goes on.", "a second item.",
        ])
        XCTAssertEqual(figures.sentences, [
            "One sentence here.", "And another one.", "an item that goes on.", "a second item.",
        ])
        XCTAssertEqual(figures.longestRunWithoutHeading.lines, 11)
    }

    func testAWallOfTextFailsEveryFigure() {
        let long = Array(repeating: "word", count: 35).joined(separator: " ") + "."
        let wall = "# Title\n" + Array(repeating: long, count: 45).joined(separator: "\n")
        let problems = Self.problems(of: Self.figures(of: wall))
        XCTAssertEqual(problems.count, 4, problems.joined(separator: "\n"))
    }

    // MARK: - Measuring

    struct Paragraph {
        var text: String
        var line: Int
    }

    struct Figures {
        var paragraphs: [Paragraph] = []
        var sentences: [String] = []
        /// The longest run of lines without a heading, and the line it starts on.
        var longestRunWithoutHeading = (lines: 0, line: 1)
    }

    /// What breaks the rules in `figures`, each with its worst case.
    static func problems(of figures: Figures) -> [String] {
        var problems: [String] = []
        let counts = figures.sentences.map(words(in:))
        let total = counts.reduce(0, +)
        if !counts.isEmpty, Double(total) / Double(counts.count) > averageWords {
            let worst = figures.sentences.max { words(in: $0) < words(in: $1) }!
            problems.append(String(format: "%.1f words a sentence on average (at most %.0f); the longest (%d words): %@",
                                   Double(total) / Double(counts.count), averageWords, words(in: worst), excerpt(worst)))
        }
        let long = figures.sentences.filter { words(in: $0) > longSentenceWords }
        if !counts.isEmpty, Double(long.count) > longSentenceShare * Double(counts.count) {
            let worst = long.max { words(in: $0) < words(in: $1) }!
            problems.append("\(long.count) of \(counts.count) sentences over \(longSentenceWords) words (at most "
                + "\(Int(longSentenceShare * 100))%); the longest (\(words(in: worst)) words): \(excerpt(worst))")
        }
        if let worst = figures.paragraphs.max(by: { words(in: $0.text) < words(in: $1.text) }),
           words(in: worst.text) > paragraphWords {
            problems.append("a paragraph of \(words(in: worst.text)) words (at most \(paragraphWords)) "
                + "at line \(worst.line): \(excerpt(worst.text))")
        }
        let run = figures.longestRunWithoutHeading
        if run.lines > linesWithoutHeading {
            problems.append("\(run.lines) lines without a heading (at most \(linesWithoutHeading)) from line \(run.line)")
        }
        return problems
    }

    private static func excerpt(_ text: String) -> String {
        text.count > 120 ? "\"\(text.prefix(120))…\"" : "\"\(text)\""
    }

    /// Splits `text` into prose paragraphs (a list item is one of its own;
    /// tables, code blocks, headings and HTML are none) and measures them.
    static func figures(of text: String) -> Figures {
        var figures = Figures()
        var current: Paragraph?
        var inFence = false
        var runStart = 1
        func close() {
            if let paragraph = current, !paragraph.text.isEmpty {
                figures.paragraphs.append(paragraph)
                figures.sentences += sentences(in: paragraph.text)
            }
            current = nil
        }
        let lines = text.components(separatedBy: "\n")
        for (index, raw) in lines.enumerated() {
            let number = index + 1
            var line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("```") {
                close()
                inFence.toggle()
                runStart += 1
                continue
            }
            // A code block is read as one piece: its lines do not count towards the run without a heading.
            if inFence {
                runStart += 1
                continue
            }
            if isHeading(line, next: index + 1 < lines.count ? lines[index + 1] : "") {
                close()
                let run = number - runStart
                if run > figures.longestRunWithoutHeading.lines {
                    figures.longestRunWithoutHeading = (run, runStart)
                }
                runStart = number + 1
                continue
            }
            while line.hasPrefix(">") {
                line = line.dropFirst().trimmingCharacters(in: .whitespaces)
            }
            if line.isEmpty || line.hasPrefix("|") || line.hasPrefix("<") || line.hasPrefix("![")
                || Set(line).isSubset(of: ["=", "-", " "]) || line.range(of: #"^\[[^\]]+\]:\s"#, options: .regularExpression) != nil {
                close()
                continue
            }
            if let item = listItem(line) {
                close()
                current = Paragraph(text: item, line: number)
            } else if current == nil {
                current = Paragraph(text: line, line: number)
            } else {
                current!.text += " " + line
            }
        }
        close()
        let run = lines.count + 1 - runStart
        if run > figures.longestRunWithoutHeading.lines {
            figures.longestRunWithoutHeading = (run, runStart)
        }
        return figures
    }

    private static func isHeading(_ line: String, next: String) -> Bool {
        let hashes = line.prefix { $0 == "#" }
        if (1...6).contains(hashes.count), line.dropFirst(hashes.count).first == " " { return true }
        let underline = next.trimmingCharacters(in: .whitespaces)
        return !line.isEmpty && !line.hasPrefix("|") && !line.hasPrefix("-") && !underline.isEmpty
            && Set(underline) == ["="]
    }

    /// The text of a list item (`- `, `* `, `1. `), or nil.
    private static func listItem(_ line: String) -> String? {
        if line.hasPrefix("- ") || line.hasPrefix("* ") || line.hasPrefix("+ ") {
            return String(line.dropFirst(2))
        }
        let digits = line.prefix { $0.isNumber }
        if !digits.isEmpty, line.dropFirst(digits.count).hasPrefix(". ") {
            return String(line.dropFirst(digits.count + 2))
        }
        return nil
    }

    /// Abbreviations after which a stop does not end a sentence.
    private static let abbreviations: Set<String> = ["e.g.", "i.e.", "etc.", "vs.", "cf.", "approx.", "no.", "Mr.", "Dr."]

    /// The sentences of `paragraph`: a sentence ends at `.`, `!` or `?`
    /// (and any closing bracket or quote) before a space and anything but a
    /// lowercase letter; never inside a code span or after an abbreviation.
    static func sentences(in paragraph: String) -> [String] {
        let characters = Array(paragraph)
        var sentences: [String] = []
        var start = 0
        var inCode = false
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character == "`" { inCode.toggle() }
            guard !inCode, ".!?".contains(character) else {
                index += 1
                continue
            }
            var end = index + 1
            while end < characters.count, ")]\"'*_”’".contains(characters[end]) { end += 1 }
            let nextStart = end + 1
            let endsSentence: Bool
            if end == characters.count {
                endsSentence = true
            } else if characters[end] == " ", nextStart < characters.count {
                let next = characters[nextStart]
                let word = String(characters[start..<index + 1]).split(separator: " ").last.map(String.init) ?? ""
                let abbreviation = character == "." && abbreviations.contains(word.trimmingCharacters(in: CharacterSet(charactersIn: "(")))
                endsSentence = !abbreviation && !next.isLowercase
            } else {
                endsSentence = false
            }
            if endsSentence {
                sentences.append(String(characters[start..<end]).trimmingCharacters(in: .whitespaces))
                start = end
            }
            index = end
        }
        let rest = String(characters[start...]).trimmingCharacters(in: .whitespaces)
        if !rest.isEmpty { sentences.append(rest) }
        return sentences
    }

    /// The words of `text`: a link counts as its text, a code span as one
    /// word, and a token without a letter or digit (a dash) as none.
    static func words(in text: String) -> Int {
        let link = try! NSRegularExpression(pattern: #"\]\([^)]*\)"#)
        let code = try! NSRegularExpression(pattern: "`[^`]*`")
        var text = link.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "]")
        text = code.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "code")
        return text.split(whereSeparator: \.isWhitespace).filter { $0.contains { $0.isLetter || $0.isNumber } }.count
    }
}
