import GRDB

/// The two orderings of the Hall of Fame.
package enum Ordering: String, CaseIterable, Equatable, Sendable {
    /// Score descending, then name, then id: the index `(score DESC, name, id)`.
    case byScore
    /// Name, then score descending, then id: the index `(name, score DESC, id)`.
    case byName

    var toggled: Ordering {
        self == .byScore ? .byName : .byScore
    }
}

// MARK: - Sort Key

/// A column of a sort key, and its direction.
struct SortColumn: Equatable, Sendable {
    enum Name: String, Sendable {
        case id, name, score
    }

    var name: Name
    var descending: Bool

    /// The term of an `ORDER BY` clause: `score DESC`, `name`.
    var orderingTerm: String {
        descending ? "\(name.rawValue) DESC" : name.rawValue
    }
}

extension Ordering {
    // The one definition of each ordering's sort key. The window engine's
    // ordering (`rowOrdering`, from which `RowWindow` derives the keyset
    // SQL of `HallOfFame.fetch`), the comparator (`sortsBefore`), the rank
    // estimate and the benchmark's naive query are derived from it; the
    // index of the migration `createPlayer` is frozen SQL, and a test
    // holds it against these columns.

    /// The sort key: the columns of the index of the ordering, in order.
    /// The id makes the key unique.
    var sortColumns: [SortColumn] {
        switch self {
        case .byScore:
            return [
                SortColumn(name: .score, descending: true),
                SortColumn(name: .name, descending: false),
                SortColumn(name: .id, descending: false),
            ]
        case .byName:
            return [
                SortColumn(name: .name, descending: false),
                SortColumn(name: .score, descending: true),
                SortColumn(name: .id, descending: false),
            ]
        }
    }

    /// The index whose entries are in the order of the sort key.
    var indexName: String {
        switch self {
        case .byScore: return "player_on_score"
        case .byName: return "player_on_name"
        }
    }

    /// The `ORDER BY` clause of the ordering: `score DESC, name, id`.
    package var orderByClause: String {
        sortColumns.map(\.orderingTerm).joined(separator: ", ")
    }

    /// The ordering as the window engine reads it: the sort key, on the
    /// index of the ordering. Every column is NOT NULL, and the id makes
    /// the key unique.
    var rowOrdering: RowOrdering {
        switch self {
        case .byScore: return Self.byScoreRowOrdering
        case .byName: return Self.byNameRowOrdering
        }
    }

    private static let byScoreRowOrdering = Ordering.byScore.makeRowOrdering()
    private static let byNameRowOrdering = Ordering.byName.makeRowOrdering()

    private func makeRowOrdering() -> RowOrdering {
        RowOrdering(
            keyColumns: sortColumns.map {
                RowOrdering.KeyColumn(expression: $0.name.rawValue, descending: $0.descending, isNotNull: true)
            },
            isUnique: true,
            indexName: indexName)
    }

    /// The position of a player in the window engine's ordering: its sort
    /// key (see `sortKey(of:)`).
    func rowPosition(of player: Player) -> RowPosition {
        RowPosition(key: sortKey(of: player))
    }

    func position(of column: SortColumn.Name) -> Int {
        sortColumns.firstIndex { $0.name == column }!
    }

    /// The sort key of a player, as the database would store it, in the
    /// order of `sortColumns`. A player that was never inserted (nil id)
    /// sorts before all players of the same score and name.
    func sortKey(of player: Player) -> [DatabaseValue] {
        sortColumns.map { column in
            switch column.name {
            case .id: return (player.id ?? Int64.min).databaseValue
            case .name: return player.name.databaseValue
            case .score: return player.score.databaseValue
            }
        }
    }

    func compare(_ a: [DatabaseValue], _ b: [DatabaseValue]) -> Int {
        for (column, (a, b)) in zip(sortColumns, zip(a, b)) {
            let order = DatabaseValue.sqliteComparison(a, b)
            if order != 0 { return column.descending ? -order : order }
        }
        return 0
    }

    /// True when `a` sorts strictly before `b`, as the index of the
    /// ordering (and SQLite's `ORDER BY`) sorts them: scores of any kind
    /// as SQLite compares them, names byte by byte (SQLite's BINARY
    /// collation, where Swift's `<` compares normalized strings).
    func sortsBefore(_ a: Player, _ b: Player) -> Bool {
        compare(sortKey(of: a), sortKey(of: b)) < 0
    }
}

/// Where a window of players starts, in a given ordering.
package enum WindowAnchor: Equatable, Sendable {
    case first
    case last
    /// A player, followed by its id: the window is anchored on its current sort key while it exists
    /// (so the selection follows a player whose score changes), else on the key given here.
    case player(Player)
}

/// The rows the app wants to see: up to `before` players that sort before
/// the anchor, and up to `after` players from the anchor on.
package struct WindowRequest: Equatable, Sendable {
    package var ordering: Ordering
    var anchor: WindowAnchor
    /// The number of players before the anchor (ignored for `.first`).
    var before: Int
    /// The number of players from the anchor on.
    var after: Int

    package init(ordering: Ordering, anchor: WindowAnchor, before: Int, after: Int) {
        self.ordering = ordering
        self.anchor = anchor
        self.before = before
        self.after = after
    }
}

/// One consistent value of the Hall of Fame, fetched in a single database
/// read: the player count, the max score and a window of players always
/// agree, as GRDB guarantees for the values of one `ValueObservation`.
package struct HallOfFame: Equatable, Sendable {
    package var playerCount: Int
    /// The greatest score as SQLite's `MAX(score)` answers it (a text or
    /// a blob is greater than any number, see `Score`), or nil when the
    /// table is empty: the score of the first player by score.
    var maxScore: Score?
    package var request: WindowRequest
    var players: [Player]
    /// The 0-based rank of `players.first` in the ordering.
    var firstRank: Int
    /// False when `firstRank` is an estimate (an exact rank would cost a scan).
    var rankIsExact: Bool
    /// True when no player sorts before `players.first`.
    var reachesStart: Bool
    /// True when no player sorts after `players.last`.
    var reachesEnd: Bool

    /// Creates a value; `HallOfFame.fetch(_:_:)` fetches one.
    package init(
        playerCount: Int, maxScore: Score?, request: WindowRequest, players: [Player],
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
