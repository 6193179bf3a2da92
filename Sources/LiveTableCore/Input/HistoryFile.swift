import Foundation

/// The queries typed at the query prompt and given with `--query`, kept
/// between runs in `$XDG_STATE_HOME/livetable/history`
/// (`~/.local/state/livetable/history`). The file is the user's alone
/// (mode 0600, its folder 0700): a query can hold values. One query a line,
/// oldest first, `\` and line ends escaped; rewritten whole beside itself
/// and renamed, so that two runs never leave half a file.
package struct HistoryFile: Sendable {
    package let url: URL
    /// The most queries kept: the oldest go first.
    package var limit = 500

    package init(url: URL) {
        self.url = url
    }

    /// The file under `XDG_STATE_HOME`, else under `HOME/.local/state`;
    /// nil without either.
    package static func standard(environment: [String: String]) -> HistoryFile? {
        let base: URL
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            base = URL(fileURLWithPath: state)
        } else if let home = environment["HOME"], !home.isEmpty {
            base = URL(fileURLWithPath: home).appendingPathComponent(".local/state")
        } else {
            return nil
        }
        return HistoryFile(url: base.appendingPathComponent("livetable/history"))
    }

    /// The queries, oldest first; none when the file is missing or unreadable.
    package func load() -> PromptHistory {
        var history = PromptHistory()
        history.limit = limit
        guard let data = FileManager.default.contents(atPath: url.path) else { return history }
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            history.add(Self.unescaped(line))
        }
        return history
    }

    /// Adds `query` at the end (once: an older copy goes) and writes the file.
    package func record(_ query: String) throws {
        var history = load()
        history.add(query)
        let folder = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let text = history.lines.map(Self.escaped).joined(separator: "\n") + "\n"
        let temporary = folder.appendingPathComponent(".history.\(ProcessInfo.processInfo.processIdentifier)")
        guard FileManager.default.createFile(
            atPath: temporary.path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
        else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary.path])
        }
        guard rename(temporary.path, url.path) == 0 else {
            let error = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
    }

    static func escaped(_ query: String) -> String {
        var result = ""
        for character in query {
            switch character {
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\r\n": result += "\\r\\n"
            default: result.append(character)
            }
        }
        return result
    }

    static func unescaped(_ line: Substring) -> String {
        var result = ""
        var isEscaped = false
        for character in line {
            if isEscaped {
                switch character {
                case "n": result += "\n"
                case "r": result += "\r"
                default: result.append(character)
                }
                isEscaped = false
            } else if character == "\\" {
                isEscaped = true
            } else {
                result.append(character)
            }
        }
        return result
    }
}
