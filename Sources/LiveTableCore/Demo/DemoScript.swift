/// One step of the demo walkthrough: a caption, and the messages that
/// perform it, as if the user pressed the keys; messages of the Hall of
/// Fame (`HallOfFameMessage`) or of the viewer (`ViewerMessage`).
package struct DemoStep<Message: Equatable & Sendable>: Equatable, Sendable {
    /// What the step shows, for the status line.
    package var caption: String
    /// The messages the step sends, in order.
    package var messages: [Message]

    /// Creates a step.
    init(caption: String, messages: [Message]) {
        self.caption = caption
        self.messages = messages
    }
}

/// The walkthrough of `livetable demo`.
/// Steps only press keys, so they go through the same `update` as a user. The player waits while
/// a stress test runs: its refreshes would populate the table again after "delete all".
package enum DemoScript {
    /// The name the edit step types.
    static let editedName = "Demo Player"
    /// The score the edit step types.
    static let editedScore = 1000

    /// The steps: populate, insert, edit, ordering toggle, refresh, delete,
    /// stress test, delete all.
    static let steps: [DemoStep<HallOfFameMessage>] = [
        DemoStep(
            caption: "Refresh (r): an empty table gets 8 random players",
            messages: keys("r")),
        DemoStep(
            caption: "Insert a random player (n)",
            messages: keys("n")),
        DemoStep(
            caption: "Move down (j) and edit the player (e): type a name and a score, Enter saves",
            messages: keys("j", "e")
                + [.key(.control("u"))] + keys(editedName)
                + [.key(.tab), .key(.control("u"))] + keys(String(editedScore))
                + [.key(.enter)]),
        DemoStep(
            caption: "Toggle the ordering (o): by name",
            messages: keys("o")),
        DemoStep(
            caption: "Refresh (r): new random scores, maybe a player more or less",
            messages: keys("r")),
        DemoStep(
            caption: "Delete the selected player (d)",
            messages: keys("d")),
        DemoStep(
            caption: "Stress test (s): 50 concurrent refreshes",
            messages: keys("s")),
        DemoStep(
            caption: "Delete all players (D), and confirm (y)",
            messages: keys("D", "y")),
    ]

    /// The steps for a table of `playerCount` players.
    package static func steps(playerCount: Int) -> [DemoStep<HallOfFameMessage>] {
        playerCount > 0 ? Array(steps.dropFirst()) : steps
    }

    /// The question asked on the terminal before the demo plays on a
    /// database file that holds players, or nil for an empty table: the
    /// steps change the players and delete them all, so the user says yes
    /// first.
    package static func confirmation(path: String, playerCount: Int) -> String? {
        switch playerCount {
        case ...0: return nil
        case 1: return "\(path) holds 1 player: the demo changes it, then deletes it. Play it? [y/N]"
        default: return "\(path) holds \(playerCount) players: the demo changes them, then deletes them all. Play it? [y/N]"
        }
    }

    // MARK: - The viewer

    /// The name of the table of the viewer's part, in the file that the
    /// demo makes and writes as another program would.
    package static let viewerTable = "orders"

    /// The steps of the viewer's part, which follows the Hall of Fame's:
    /// `livetable view` on a file that another connection writes meanwhile
    /// (new orders, and orders of the first rows that change status).
    package static let viewerSteps: [DemoStep<ViewerMessage>] = [
        DemoStep(
            caption: "livetable view: any SQLite file, read-only; another program writes this one, live",
            messages: []),
        DemoStep(
            caption: "Move down (j j j): the selection stays on its row while rows change",
            messages: viewerKeys("jjj")),
        DemoStep(
            caption: "End (G): the last rows; new orders arrive after them, and the count grows",
            messages: viewerKeys("G")),
        DemoStep(
            caption: "Columns (l l): > widens the current one, - hides it; the key column stays left",
            messages: viewerKeys("ll>-")),
        DemoStep(
            caption: "= shows the hidden columns again; < narrows, ← → scroll sideways",
            messages: viewerKeys("=")),
        DemoStep(
            caption: "/ searches the column (← l: customer) in SQL, over the whole table: n, N the next, previous",
            messages: Array(repeating: .key(.left), count: 5) + viewerKeys("l/zo") + [.key(.enter)]),
        DemoStep(
            caption: "f filters by a SQL expression: status = 'new'; the rows and the count follow it, live",
            messages: viewerKeys("fstatus = 'new'") + [.key(.enter)]),
        DemoStep(
            caption: "Esc clears the filter",
            messages: [.key(.escape)]),
        DemoStep(
            caption: "Enter: the whole row, every column",
            messages: [.key(.enter)]),
        DemoStep(
            caption: "F: follow, like less +F: the view stays on the last row as new orders arrive",
            messages: [.key(.enter)] + viewerKeys("F")),
        DemoStep(
            caption: "Space pauses: the rows stay as they are while orders arrive; the title counts the changes",
            messages: viewerKeys(" ")),
        DemoStep(
            caption: "Space again shows the latest rows, what changed meanwhile highlighted",
            messages: viewerKeys(" ")),
        DemoStep(
            caption: "F again stops; ← → to total, then ]: the whole table sorted by total, largest first",
            messages: viewerKeys("F") + Array(repeating: .key(.left), count: 5)
                + Array(repeating: .key(.right), count: 4) + viewerKeys("]")),
        DemoStep(
            caption: "t: the table picker, with row counts",
            messages: viewerKeys("t")),
        DemoStep(
            caption: "livetable view FILE [TABLE] shows your own files; the demo's file is removed",
            messages: []),
    ]

    /// Key messages that type each character of the texts.
    private static func keys(_ texts: String...) -> [HallOfFameMessage] {
        texts.flatMap { $0.map { HallOfFameMessage.key(.character($0)) } }
    }

    /// Viewer key messages that type each character of `text`.
    private static func viewerKeys(_ text: String) -> [ViewerMessage] {
        text.map { ViewerMessage.key(.character($0)) }
    }
}
