import Foundation
import XCTest

/// The package's Swift sources as the rule tests read them (folders, sizes,
/// comments, shared state): each file by its path, and each line told into
/// code, comments and string literals.
enum SwiftSource {
    /// `Sources`, beside `Tests`.
    static let sourcesRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    /// Each Swift file under `root`, by its path relative to `root`.
    static func files(under root: URL = sourcesRoot) throws -> [String: String] {
        let enumerator = try XCTUnwrap(FileManager.default.enumerator(atPath: root.path))
        var sources: [String: String] = [:]
        for case let path as String in enumerator where path.hasSuffix(".swift") {
            sources[path] = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        }
        return sources
    }

    struct Line {
        /// The line with its comments and string literals blanked out (a
        /// string leaves one space).
        var code = ""
        /// Code or a string literal, a trailing comment or not.
        var hasCode = false
        var hasComment = false
    }

    /// The lines of `text`, line numbers kept. Block comments nest; a
    /// one-line string ends with its line.
    static func lines(_ text: String) -> [Line] {
        enum State { case code, blockComment(depth: Int), string, multilineString }
        var state = State.code
        var lines: [Line] = []
        for text in text.components(separatedBy: "\n") {
            var line = Line()
            if case .string = state { state = .code }
            if case .multilineString = state { line.hasCode = true }
            if case .blockComment = state { line.hasComment = true }
            let characters = Array(text)
            var index = 0
            scan: while index < characters.count {
                let rest = characters[index...]
                switch state {
                case .code:
                    if rest.starts(with: "//") {
                        line.hasComment = true
                        break scan
                    } else if rest.starts(with: "/*") {
                        state = .blockComment(depth: 1); line.hasComment = true; index += 2
                    } else if rest.starts(with: "\"\"\"") {
                        state = .multilineString; line.hasCode = true; line.code += " "; index += 3
                    } else if characters[index] == "\"" {
                        state = .string; line.hasCode = true; line.code += " "; index += 1
                    } else {
                        if !characters[index].isWhitespace { line.hasCode = true }
                        line.code.append(characters[index]); index += 1
                    }
                case let .blockComment(depth):
                    if rest.starts(with: "*/") {
                        state = depth == 1 ? .code : .blockComment(depth: depth - 1); index += 2
                    } else if rest.starts(with: "/*") {
                        state = .blockComment(depth: depth + 1); index += 2
                    } else {
                        index += 1
                    }
                case .string:
                    if characters[index] == "\\" {
                        index += 2
                    } else {
                        if characters[index] == "\"" { state = .code }
                        index += 1
                    }
                case .multilineString:
                    if rest.starts(with: "\"\"\"") {
                        state = .code; index += 3
                    } else {
                        index += characters[index] == "\\" ? 2 : 1
                    }
                }
            }
            lines.append(line)
        }
        return lines
    }
}
