import Foundation

/// A line of the pane, each character with the SGR attribute codes it is
/// drawn with: "1" bold, "4" underline, "7" reverse, "33" yellow, "38;5;11"…
/// Parsed from `tmux capture-pane -e`, which re-encodes what the app wrote,
/// so that they do not depend on how ncurses chose to write it.
struct StyledLine {
    /// The characters of the line and their codes.
    var characters: [(character: Character, codes: Set<String>)] = []

    /// The text of the line, without attributes.
    var text: String { String(characters.map(\.character)) }

    /// Parses one line of `capture-pane -p -e`.
    init(parsing line: String) {
        var bold = false, underline = false, reverse = false
        var foreground: String?, background: String?
        var rest = Substring(line)
        while let character = rest.first {
            if character == "\u{1B}", rest.dropFirst().first == "[",
               let end = rest.dropFirst(2).firstIndex(where: { !($0.isNumber || $0 == ";") })
            {
                let parameters = rest[rest.index(rest.startIndex, offsetBy: 2)..<end]
                if rest[end] == "m" {
                    var codes = parameters.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
                    if codes.isEmpty { codes = ["0"] }
                    while !codes.isEmpty {
                        let code = codes.removeFirst()
                        switch code {
                        case "", "0":
                            bold = false; underline = false; reverse = false
                            foreground = nil; background = nil
                        case "1": bold = true
                        case "22": bold = false
                        case "4": underline = true
                        case "24": underline = false
                        case "7": reverse = true
                        case "27": reverse = false
                        case "39": foreground = nil
                        case "49": background = nil
                        case "38", "48":
                            // 38;5;n or 38;2;r;g;b
                            let count = codes.first == "5" ? 2 : codes.first == "2" ? 4 : 0
                            let value = ([code] + codes.prefix(count)).joined(separator: ";")
                            codes.removeFirst(min(count, codes.count))
                            if code == "38" { foreground = value } else { background = value }
                        default:
                            if let number = Int(code) {
                                if (30...37).contains(number) || (90...97).contains(number) { foreground = code }
                                if (40...47).contains(number) || (100...107).contains(number) { background = code }
                            }
                        }
                    }
                }
                rest = rest[rest.index(after: end)...]
                continue
            }
            var codes: Set<String> = []
            if bold { codes.insert("1") }
            if underline { codes.insert("4") }
            if reverse { codes.insert("7") }
            if let foreground { codes.insert(foreground) }
            if let background { codes.insert(background) }
            characters.append((character, codes))
            rest = rest.dropFirst()
        }
    }

    /// The codes of the characters of `text` where it first occurs in the
    /// line, when they are the same for all of them; nil when the line
    /// does not hold `text`, or its characters differ.
    func codes(of text: String) -> Set<String>? {
        let target = Array(text)
        guard !target.isEmpty, target.count <= characters.count else { return nil }
        for start in 0...(characters.count - target.count)
        where characters[start..<start + target.count].map(\.character) == target {
            let codes = characters[start..<start + target.count].map(\.codes)
            return codes.allSatisfy { $0 == codes[0] } ? codes[0] : nil
        }
        return nil
    }
}

extension Array where Element == StyledLine {
    /// The codes of `text` on the first line that holds it (see
    /// `StyledLine.codes(of:)`), or nil.
    func codes(of text: String) -> Set<String>? {
        first { $0.text.contains(text) }?.codes(of: text)
    }
}
