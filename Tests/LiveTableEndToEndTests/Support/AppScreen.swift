import Foundation
import XCTest

/// The main screen of livetable, read back from the text of a tmux pane:
/// the title bar, the rows of the players pane, and the values of the
/// player-count and max-score panes.
struct AppScreen: CustomStringConvertible {
    struct Row: Equatable, CustomStringConvertible {
        var name: String
        var score: Int
        var description: String { "\(name) \(score)" }
    }

    let text: String
    let lines: [String]

    init(_ text: String) {
        self.text = text
        lines = text.components(separatedBy: "\n")
    }

    var description: String { text }

    /// The title bar: "Hall of Fame — by score … row 1 of 8".
    var title: String? {
        lines.first { $0.contains("Hall of Fame") }
    }

    /// The player rows of the players pane, top to bottom.
    var rows: [Row] {
        lines.compactMap { line in
            // "│ Name with spaces      889 │…": the first box's inner text.
            let cells = line.split(separator: "│", omittingEmptySubsequences: false)
            guard line.hasPrefix("│"), cells.count >= 3 else { return nil }
            let inner = cells[1].trimmingCharacters(in: .whitespaces)
            guard let space = inner.lastIndex(of: " "),
                  let score = Int(inner[inner.index(after: space)...])
            else { return nil }
            let name = inner[..<space].trimmingCharacters(in: .whitespaces)
            return name.isEmpty ? nil : Row(name: name, score: score)
        }
    }

    /// The text of the player-count pane ("8", "1,024", "…").
    var playerCount: String? {
        paneValue(titled: "Players")
    }

    /// The text of the max-score pane ("889", "-").
    var maxScore: String? {
        paneValue(titled: "Max score")
    }

    /// The value below the top border of the pane titled `title`.
    ///
    /// Boxes stand side by side ("┌ Players ─┐┌ Max score ─┐", or a row of
    /// the players list then the pane): the pane is the k-th box of its
    /// line, and its value the k-th "│…│" box of the next line.
    private func paneValue(titled title: String) -> String? {
        guard let index = lines.firstIndex(where: { $0.contains("┌ \(title) ") }),
              index + 1 < lines.count,
              let header = lines[index].range(of: "┌ \(title) ")
        else { return nil }
        // Each box to the left ends with "┐", "┘", or the second of its "│".
        let prefix = lines[index][..<header.lowerBound]
        let boxesBefore = prefix.filter { $0 == "┐" || $0 == "┘" }.count + prefix.filter { $0 == "│" }.count / 2
        let segments = lines[index + 1].split(separator: "│", omittingEmptySubsequences: false)
        let segment = 1 + 2 * boxesBefore
        guard segment < segments.count else { return nil }
        return segments[segment].trimmingCharacters(in: .whitespaces)
    }

    /// The number of rows the players pane can show: its inner height.
    var rowCapacity: Int {
        lines.filter { $0.hasPrefix("│") }.count
    }

    /// True when the players pane says the table is empty.
    var showsNoPlayer: Bool {
        lines.contains { $0.contains("No Player") }
    }
}

extension LiveTableTestCase {
    /// The first rows of the table in the given ordering, as the players
    /// pane shows them.
    func databaseRows(_ database: URL, orderBy ordering: String = "score DESC, name, id", limit: Int = 25) throws -> [AppScreen.Row] {
        let output = try sqlite(database, "SELECT name || '|' || score FROM player ORDER BY \(ordering) LIMIT \(limit)")
        return output.split(separator: "\n").map { line in
            let parts = line.split(separator: "|", omittingEmptySubsequences: false)
            return AppScreen.Row(name: String(parts[0]), score: Int(parts[1])!)
        }
    }

    /// The player count and max score of the database, as the panes show
    /// them.
    func databaseStats(_ database: URL) throws -> (count: String, maxScore: String) {
        let output = try sqlite(database, "SELECT COUNT(*) || '|' || IFNULL(MAX(score), '-') FROM player")
        let parts = output.split(separator: "|").map(String.init)
        let count = Int(parts[0])!.formatted(.number.grouping(.automatic).locale(Locale(identifier: "en_US")))
        return (count, parts[1])
    }

    /// Waits until the screen shows exactly what the database holds: the
    /// first rows in the ordering (as many as the players pane can show),
    /// the player count and the max score.
    @discardableResult
    func waitForScreenMatchingDatabase(
        _ session: TmuxSession, _ database: URL,
        orderBy ordering: String = "score DESC, name, id",
        timeout: TimeInterval = 5,
        file: StaticString = #filePath, line: UInt = #line) throws -> AppScreen
    {
        var expected = ""
        do {
            let text = try session.waitForScreen(
                "the screen to match the database", timeout: timeout, file: file, line: line)
            { text in
                let screen = AppScreen(text)
                guard screen.rowCapacity > 0,
                      let rows = try? databaseRows(database, orderBy: ordering, limit: screen.rowCapacity),
                      let stats = try? databaseStats(database)
                else { return false }
                expected = "rows \(rows), count \(stats.count), max \(stats.maxScore)"
                return screen.rows == rows
                    && screen.playerCount == stats.count
                    && screen.maxScore == stats.maxScore
                    && rows.isEmpty == screen.showsNoPlayer
            }
            return AppScreen(text)
        } catch {
            XCTFail("The database holds: \(expected)", file: file, line: line)
            throw error
        }
    }
}
