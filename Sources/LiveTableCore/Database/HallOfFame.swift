/// The two orderings of the Hall of Fame.
public enum Ordering: String, CaseIterable, Equatable, Sendable {
    /// Score descending, then name, then id: the index `(score DESC, name, id)`.
    case byScore
    /// Name, then score descending, then id: the index `(name, score DESC, id)`.
    case byName

    /// The other ordering.
    public var toggled: Ordering {
        self == .byScore ? .byName : .byScore
    }
}

/// Where a window of players starts, in a given ordering.
public enum WindowAnchor: Equatable, Sendable {
    /// The first player in the ordering.
    case first
    /// The last player in the ordering.
    case last
    /// A player, followed by its id: while a player with this id exists,
    /// the window is anchored on its current sort key, wherever its latest
    /// name and score moved it; otherwise (deleted, or never inserted), on
    /// the sort key given here.
    ///
    /// A window that answers `.player(p)` with `after > 0` thus contains
    /// the player of id `p.id` whenever it exists, which is how the app
    /// keeps its selection on a player whose score changes.
    ///
    /// For example:
    ///
    /// ```swift
    /// // Barbara's score is now 10: the window is around her new place.
    /// let anchor = WindowAnchor.player(Player(id: 2, name: "Barbara", score: 1100))
    /// ```
    case player(Player)
}

/// The rows the app wants to see: up to `before` players that sort before
/// the anchor, and up to `after` players from the anchor on.
public struct WindowRequest: Equatable, Sendable {
    /// The ordering of the players.
    public var ordering: Ordering
    /// Where the window starts.
    public var anchor: WindowAnchor
    /// The number of players before the anchor (ignored for `.first`).
    public var before: Int
    /// The number of players from the anchor on.
    public var after: Int

    /// Creates a request.
    ///
    /// For example:
    ///
    /// ```swift
    /// // The first 60 players by score.
    /// let request = WindowRequest(ordering: .byScore, anchor: .first, before: 0, after: 60)
    /// ```
    public init(ordering: Ordering, anchor: WindowAnchor, before: Int, after: Int) {
        self.ordering = ordering
        self.anchor = anchor
        self.before = before
        self.after = after
    }
}

/// One consistent value of the Hall of Fame, fetched in a single database
/// read: the player count, the max score and a window of players always
/// agree, as GRDB guarantees for the values of one `ValueObservation`.
public struct HallOfFame: Equatable, Sendable {
    /// The number of players in the table.
    public var playerCount: Int
    /// The best score, or nil when the table is empty.
    public var maxScore: Int?
    /// The request this value answers.
    public var request: WindowRequest
    /// Consecutive players in `request.ordering`.
    public var players: [Player]
    /// The 0-based rank of `players.first` in the ordering.
    public var firstRank: Int
    /// False when `firstRank` is an estimate (an exact rank would cost a scan).
    public var rankIsExact: Bool
    /// True when no player sorts before `players.first`.
    public var reachesStart: Bool
    /// True when no player sorts after `players.last`.
    public var reachesEnd: Bool

    /// Creates a value; `HallOfFame.fetch(_:_:)` fetches one.
    ///
    /// For example:
    ///
    /// ```swift
    /// let empty = HallOfFame(
    ///     playerCount: 0, maxScore: nil, request: request, players: [],
    ///     firstRank: 0, rankIsExact: true, reachesStart: true, reachesEnd: true)
    /// ```
    public init(
        playerCount: Int, maxScore: Int?, request: WindowRequest, players: [Player],
        firstRank: Int, rankIsExact: Bool, reachesStart: Bool, reachesEnd: Bool)
    {
        self.playerCount = playerCount
        self.maxScore = maxScore
        self.request = request
        self.players = players
        self.firstRank = firstRank
        self.rankIsExact = rankIsExact
        self.reachesStart = reachesStart
        self.reachesEnd = reachesEnd
    }
}
