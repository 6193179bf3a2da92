/// One step of the demo walkthrough: a caption, and the messages that
/// perform it, as if the user pressed the keys.
///
/// For example:
///
/// ```swift
/// DemoStep(caption: "Insert a random player (n)", messages: [.key(.character("n"))])
/// ```
public struct DemoStep: Equatable, Sendable {
    /// What the step shows, for the status line.
    public var caption: String
    /// The messages the step sends, in order.
    public var messages: [Message]

    /// Creates a step.
    ///
    /// For example:
    ///
    /// ```swift
    /// DemoStep(caption: "Refresh (r)", messages: [.key(.character("r"))])
    /// ```
    public init(caption: String, messages: [Message]) {
        self.caption = caption
        self.messages = messages
    }
}

/// The walkthrough of `livetable demo`.
///
/// The runtime sends `.demoCaption(step.caption)`, then each message of the
/// step, at a readable pace, and `.demoCaption(nil)` after the last step.
/// Steps only press keys, so the demo goes through the same `update` as a
/// user does, and shows the real effects of each key. Before a step, the
/// runtime waits while `state.isStressTestRunning`: deleting all players
/// while refreshes run would let them populate the table again.
///
/// For example:
///
/// ```swift
/// for step in DemoScript.steps {
///     await waitUntil { !state.isStressTestRunning }
///     send(.demoCaption(step.caption))
///     for message in step.messages { send(message); pause() }
/// }
/// send(.demoCaption(nil))
/// ```
public enum DemoScript {
    /// The name the edit step types.
    public static let editedName = "Demo Player"
    /// The score the edit step types.
    public static let editedScore = 1000

    /// The steps: populate, insert, edit, ordering toggle, refresh, delete,
    /// stress test, delete all.
    ///
    /// For example:
    ///
    /// ```swift
    /// DemoScript.steps.map(\.caption)
    /// ```
    public static let steps: [DemoStep] = [
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

    /// Key messages that type each character of the texts.
    private static func keys(_ texts: String...) -> [Message] {
        texts.flatMap { $0.map { Message.key(.character($0)) } }
    }
}
