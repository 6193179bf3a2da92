import Foundation

// MARK: - Values a person can read

extension RowDetail {
    /// A JSON object or array (PostgreSQL's json and jsonb, or text that
    /// parses as one), indented two spaces a level, its keys in their
    /// order; nil for any other text, or one longer than `maximumBytes`.
    static func indentedJSON(_ text: String) -> [String]? {
        guard text.utf8.count <= maximumBytes,
            let first = text.unicodeScalars.first(where: { !isJSONSpace($0) }), first == "{" || first == "[",
            (try? JSONSerialization.jsonObject(with: Data(text.utf8))) != nil
        else { return nil }
        var lines: [String] = []
        var line = ""
        var depth = 0
        var inString = false
        var escaped = false
        func newLine() {
            lines.append(line)
            line = String(repeating: "  ", count: depth)
        }
        let scalars = Array(text.unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            if inString {
                line.unicodeScalars.append(scalar)
                if escaped {
                    escaped = false
                } else if scalar == "\\" {
                    escaped = true
                } else if scalar == "\"" {
                    inString = false
                }
                continue
            }
            switch scalar {
            case _ where isJSONSpace(scalar):
                continue
            case "\"":
                inString = true
                line.unicodeScalars.append(scalar)
            case "{", "[":
                line.unicodeScalars.append(scalar)
                // `{}` and `[]` stay on one line.
                let next = scalars[(index + 1)...].first { !isJSONSpace($0) }
                if next != "}" && next != "]" {
                    depth += 1
                    newLine()
                }
            case "}", "]":
                let previous = scalars[..<index].last { !isJSONSpace($0) }
                if previous != "{" && previous != "[" {
                    depth = max(0, depth - 1)
                    newLine()
                }
                line.unicodeScalars.append(scalar)
            case ",":
                line += ","
                newLine()
            case ":":
                line += ": "
            default:
                line.unicodeScalars.append(scalar)
            }
        }
        lines.append(line)
        return lines.map { CellText.escaped($0) }
    }

    private static func isJSONSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r"
    }

    /// A BLOB whose bytes are UTF-8 text without control characters (but
    /// tabs and line breaks): shown as that text, under a line that says
    /// it is a BLOB.
    static func blobText(_ data: Data) -> String? {
        guard !data.isEmpty, data.count <= maximumBytes, let text = String(data: data, encoding: .utf8),
            !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && !"\t\n\r".unicodeScalars.contains($0) })
        else { return nil }
        return text
    }
}
