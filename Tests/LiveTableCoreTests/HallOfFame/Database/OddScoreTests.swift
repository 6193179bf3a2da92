import Foundation
import GRDB
import XCTest
@testable import LiveTableCore

/// Scores that another process stored as something else than an integer
/// (issue 7): the `score INTEGER NOT NULL` column keeps texts, blobs and
/// reals beyond 64-bit integers. They decode as stored, show as stored,
/// sort where SQLite sorts them, and count, max, list and keyset agree.
final class OddScoreTests: XCTestCase {
    /// What another process may write in the score column, as SQL
    /// literals, with the score that the app reads back.
    static let oddScores: [(literal: String, score: Score)] = [
        ("'abc'", .text("abc")),
        ("''", .text("")),
        ("'Inf'", .text("Inf")),
        ("'it''s'", .text("it's")),
        ("X'00FF'", .blob(Data([0x00, 0xFF]))),
        ("X''", .blob(Data())),
        ("-1e30", .real(-1e30)),
        ("9.9e18", .real(9.9e18)),
        ("9.223372036854775807e18", .real(9.223372036854775807e18)),
        ("1e999", .real(.infinity)),
        ("-1e999", .real(-.infinity)),
        ("1.5", .real(1.5)),
        ("-0.5", .real(-0.5)),
        // INTEGER affinity: texts and reals that are integers become integers.
        ("' 12 '", .integer(12)),
        ("5.0", .integer(5)),
        ("9223372036854775807", .integer(Int64.max)),
        ("-9223372036854775808", .integer(Int64.min)),
        ("794", .integer(794)),
        ("0", .integer(0)),
    ]

    /// Inserts a player per odd score, and a second player for some of
    /// them, so that names and ids break ties between odd scores. Returns
    /// the players by id.
    @discardableResult
    private func insertOddPlayers(_ db: Database) throws -> [Player] {
        let names = ["Dean", "Arthur", "Éric", "Anita"]
        for (index, odd) in Self.oddScores.enumerated() {
            try db.execute(
                sql: "INSERT INTO player(name, score) VALUES (?, \(odd.literal))",
                arguments: [names[index % names.count]])
        }
        for literal in ["'abc'", "-1e30", "X'00FF'", "1e999"] {
            try db.execute(sql: "INSERT INTO player(name, score) VALUES ('Arthur', \(literal))")
        }
        return try Player.fetchAll(db, sql: "SELECT * FROM player ORDER BY id")
    }

    // MARK: - Decoding

    func testPlayersDecodeEveryStoredScore() throws {
        try forEachDatabaseKind { appDatabase, kind in
            let players = try appDatabase.writer.write { db in try insertOddPlayers(db) }
            XCTAssertEqual(
                Array(players.prefix(Self.oddScores.count)).map(\.score),
                Self.oddScores.map(\.score), "\(kind)")
            // The score binds back as stored.
            try appDatabase.writer.read { db in
                for player in players {
                    XCTAssertEqual(
                        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player WHERE id = ? AND score IS ?",
                                         arguments: [player.id, player.score]),
                        1, "\(player), \(kind)")
                }
            }
        }
    }

    func testNamesDecodeWhateverIsStored() throws {
        try forEachDatabaseKind { appDatabase, kind in
            try appDatabase.writer.write { db in
                // TEXT affinity: a number becomes a text.
                try db.execute(sql: "INSERT INTO player(id, name, score) VALUES (1, 42, 1)")
                // A blob stays a blob: its bytes read as UTF-8.
                try db.execute(sql: "INSERT INTO player(id, name, score) VALUES (2, X'416E6E', 2)")
                try db.execute(sql: "INSERT INTO player(id, name, score) VALUES (3, X'41FF', 3)")
            }
            let players = try appDatabase.allPlayers()
            XCTAssertEqual(players.map(\.name), ["42", "Ann", "A\u{FFFD}"], "\(kind)")

            // A window anchored on the player with a blob name holds it:
            // the keyset binds the blob as stored.
            for ordering in Ordering.allCases {
                let request = WindowRequest(ordering: ordering, anchor: .player(players[1]), before: 0, after: 1)
                let hallOfFame = try appDatabase.writer.read { db in try HallOfFame.fetch(db, request) }
                XCTAssertEqual(hallOfFame.players.map(\.id), [2], "\(ordering), \(kind)")
            }
        }
    }

    func testScoresShowAsStored() throws {
        XCTAssertEqual(Score.real(-1e30).description, "-1.0e+30")
        XCTAssertEqual(Score.real(.infinity).description, "Inf")
        XCTAssertEqual(Score.text("abc").description, "'abc'")
        XCTAssertEqual(Score.text("it's").description, "'it''s'")
        XCTAssertEqual(Score.blob(Data([0x00, 0xFF])).description, "X'00FF'")
        XCTAssertEqual(Score(794).description, "794")

        // Numbers as SQLite writes them as text; texts and blobs as SQLite
        // quotes them.
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            for odd in Self.oddScores {
                let shown = try String.fetchOne(db, sql: """
                    SELECT CASE typeof(x) WHEN 'text' THEN quote(x) WHEN 'blob' THEN quote(x) \
                    ELSE CAST(x AS TEXT) END FROM (SELECT ? AS x)
                    """, arguments: [odd.score])
                XCTAssertEqual(odd.score.description, shown, odd.literal)
            }
            let reals: [Double] = [
                0.1, -0.5, 1e-5, 123456789.123, 1e15, 1e16, 9007199254740992, 2.5e-300, .leastNonzeroMagnitude,
                1.7976931348623157e308, -1e30, 9.9e18, 3.141592653589793, 100.25,
            ]
            for real in reals {
                let shown = try String.fetchOne(db, sql: "SELECT CAST(? AS TEXT)", arguments: [real])
                XCTAssertEqual(Score.real(real).description, shown, "\(real)")
            }
        }
    }

    // MARK: - Count and max

    func testCountAndMaxAgreeWithSQLite() throws {
        try forEachDatabaseKind { appDatabase, kind in
            func check(_ step: String) throws {
                try appDatabase.writer.read { db in
                    let request = WindowRequest(ordering: .byScore, anchor: .first, before: 0, after: 1)
                    let hallOfFame = try HallOfFame.fetch(db, request)
                    let max = try DatabaseValue.fetchOne(db, sql: "SELECT MAX(score) FROM player")!
                    let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player")!
                    XCTAssertEqual(hallOfFame.maxScore, max.isNull ? nil : Score(databaseValue: max), "\(step), \(kind)")
                    XCTAssertEqual(hallOfFame.maxScore, hallOfFame.players.first?.score, "\(step), \(kind)")
                    XCTAssertEqual(hallOfFame.playerCount, count, "\(step), \(kind)")
                }
            }
            try appDatabase.writer.write { db in
                try db.execute(sql: "INSERT INTO player(name, score) VALUES ('Ann', 794), ('Bob', 12)")
            }
            try check("integers")
            for (literal, expectedMax) in [
                ("-1e30", Score(794)), ("9.9e18", .real(9.9e18)), ("''", .text("")),
                ("'abc'", .text("abc")), ("X'00FF'", .blob(Data([0x00, 0xFF]))),
            ] as [(String, Score)] {
                try appDatabase.writer.write { db in
                    try db.execute(sql: "INSERT INTO player(name, score) VALUES ('Odd', \(literal))")
                }
                try check(literal)
                XCTAssertEqual(try appDatabase.writer.read(AppDatabase.maxScore), expectedMax, "\(literal), \(kind)")
            }
            // Other processes change and delete odd scores: the triggers
            // keep the count.
            try appDatabase.writer.write { db in
                try db.execute(sql: "UPDATE player SET score = 'x' || score WHERE name = 'Odd'")
                try db.execute(sql: "UPDATE player SET score = -1e30 WHERE name = 'Bob'")
                try db.execute(sql: "DELETE FROM player WHERE typeof(score) = 'blob'")
            }
            try check("changed")
            try appDatabase.writer.write { db in
                try db.execute(sql: "DELETE FROM player WHERE typeof(score) <> 'integer'")
            }
            try check("deleted")
            XCTAssertEqual(try appDatabase.writer.read(AppDatabase.maxScore), Score(794), "\(kind)")
        }
    }

    // MARK: - List and keyset

    func testComparatorSortsAsSQLiteOrderBy() throws {
        let dbQueue = try DatabaseQueue()
        let appDatabase = try AppDatabase(dbQueue)
        try dbQueue.write { db in
            try insertOddPlayers(db)
            // Negative ids, which an unsaved player (nil id) sorts before.
            try db.execute(sql: "INSERT INTO player(id, name, score) VALUES (-7, 'Arthur', 'abc'), (-8, 'Arthur', 794)")
            // Canonically equivalent names, which SQLite tells apart.
            try db.execute(sql: "INSERT INTO player(name, score) VALUES ('Zo\u{E9}', 3), ('Zoe\u{301}', 3)")
        }
        var players = try appDatabase.allPlayers()
        players.append(Player(name: "Arthur", score: .text("abc")))
        players.append(Player(name: "Arthur", score: 794))
        for ordering in Ordering.allCases {
            let sorted = try dbQueue.write { db -> [Player] in
                // Unsaved players join the table for the query, with the
                // id that stands for nil in the sort key.
                try db.execute(sql: """
                    CREATE TEMP TABLE unsaved AS SELECT -9223372036854775808 AS id, 'Arthur' AS name, 'abc' AS score
                    UNION ALL SELECT -9223372036854775808, 'Arthur', 794
                    """)
                defer { try? db.execute(sql: "DROP TABLE unsaved") }
                return try Player.fetchAll(db, sql: """
                    SELECT * FROM (SELECT * FROM main.player UNION ALL SELECT * FROM unsaved) \
                    ORDER BY \(ordering.orderByClause)
                    """)
            }.map { $0.id == Int64.min ? Player(name: $0.name, score: $0.score) : $0 }
            XCTAssertEqual(players.shuffled().sorted(by: ordering.sortsBefore), sorted, "\(ordering)")
            // A strict order, pair by pair.
            for (i, a) in sorted.enumerated() {
                for (j, b) in sorted.enumerated() {
                    XCTAssertEqual(ordering.sortsBefore(a, b), i < j, "\(a), \(b), \(ordering)")
                }
            }
        }
        // Scores alone: as ORDER BY score, and MAX.
        let scores = try dbQueue.read { db in
            try Score.fetchAll(db, sql: "SELECT score FROM player ORDER BY score")
        }
        XCTAssertEqual(scores.shuffled().sorted(), scores)
        XCTAssertEqual(scores.max(), try dbQueue.read(AppDatabase.maxScore))
    }

    func testKeysetPagesAcrossOddScores() throws {
        try forEachDatabaseKind { appDatabase, kind in
            let players = try appDatabase.writer.write { db in try insertOddPlayers(db) }
            for ordering in Ordering.allCases {
                var requests = [
                    WindowRequest(ordering: ordering, anchor: .first, before: 0, after: 5),
                    WindowRequest(ordering: ordering, anchor: .last, before: 3, after: 4),
                ]
                for player in players {
                    requests.append(WindowRequest(ordering: ordering, anchor: .player(player), before: 3, after: 4))
                    // An anchor that is not a player, at an odd key.
                    requests.append(WindowRequest(
                        ordering: ordering, anchor: .player(Player(name: player.name, score: player.score)),
                        before: 2, after: 2))
                }
                for request in requests {
                    let expected = HallOfFameModel.hallOfFame(players, request)
                    let exact = try appDatabase.writer.read { db in try HallOfFame.fetch(db, request) }
                    XCTAssertEqual(exact, expected, "\(request), \(kind)")
                    // The rank estimate, on odd keys.
                    let estimated = try appDatabase.writer.read { db in
                        try HallOfFame.fetch(db, request, exactRankLimit: 2)
                    }
                    XCTAssertEqual(estimated.withoutRank, expected.withoutRank, "\(request), \(kind)")
                    XCTAssertTrue((0...players.count).contains(estimated.firstRank), "\(request), \(kind)")
                }

                // Paging forward from the first page, by the anchor of the
                // last player, reads every player once, in order.
                var paged: [Player] = []
                var request = WindowRequest(ordering: ordering, anchor: .first, before: 0, after: 4)
                while true {
                    let page = try appDatabase.writer.read { db in try HallOfFame.fetch(db, request) }
                    paged += page.players.filter { player in !paged.contains { $0.id == player.id } }
                    if page.reachesEnd { break }
                    request = WindowRequest(ordering: ordering, anchor: .player(page.players.last!), before: 0, after: 4)
                }
                XCTAssertEqual(paged, HallOfFameModel.sorted(players, by: ordering), "\(ordering), \(kind)")
            }
        }
    }

    func testWindowFollowsPlayerWhoseScoreAnotherProcessMadeOdd() throws {
        try forEachDatabaseKind { appDatabase, kind in
            try appDatabase.createRandomPlayersIfEmpty(count: 20)
            for odd in Self.oddScores {
                // The player as the app last saw it, with its old score.
                let seen = try appDatabase.allPlayers()[7]
                try appDatabase.writer.write { db in
                    try db.execute(sql: "UPDATE player SET score = \(odd.literal) WHERE id = ?", arguments: [seen.id])
                }
                let players = try appDatabase.allPlayers()
                for ordering in Ordering.allCases {
                    let request = WindowRequest(ordering: ordering, anchor: .player(seen), before: 3, after: 3)
                    let hallOfFame = try appDatabase.writer.read { db in try HallOfFame.fetch(db, request) }
                    XCTAssertEqual(hallOfFame, HallOfFameModel.hallOfFame(players, request), "\(odd.literal), \(kind)")
                    XCTAssertEqual(
                        hallOfFame.players.first { $0.id == seen.id }?.score, odd.score,
                        "\(odd.literal), \(ordering), \(kind)")
                }
            }
        }
    }

    // MARK: - App

    func testOddScoresShowInTheListAndTheMaxScore() {
        let players = [
            makePlayer(1, "Blob", .blob(Data([0x00, 0xFF]))),
            makePlayer(2, "Text", .text("abc")),
            makePlayer(3, "Arthur", 794),
            makePlayer(4, "Tiny", .real(-1e30)),
        ]
        let state = makeLoadedState(players, width: 40, height: 12)
        XCTAssertEqual(hallOfFameRender(state).text, """
             Hall of Fame — by score     row 1 of 4
            ┌ Players ─────────┐┌ Max score ───────┐
            │        4         ││     X'00FF'      │
            └──────────────────┘└──────────────────┘
            ┌──────────────────────────────────────┐
            │ Blob                         X'00FF' │
            │ Text                           'abc' │
            │ Arthur                           794 │
            │ Tiny                        -1.0e+30 │
            └──────────────────────────────────────┘
             n new  e edit  d del  ? help  q quit

            """)
    }

    func testLongTextScoreLeavesRoomForNames() {
        let players = [
            makePlayer(1, "Text", .text(String(repeating: "x", count: 1000))),
            makePlayer(2, "Arthur", 794),
        ]
        let text = hallOfFameRender(makeLoadedState(players, width: 40, height: 10)).text
        // The score column is as wide as the longest integer, 20 cells.
        XCTAssertTrue(text.contains("│ Text            'xxxxxxxxxxxxxxxxxx… │"), text)
        XCTAssertTrue(text.contains("│ Arthur                           794 │"), text)
        XCTAssertTrue(text.contains("││'xxxxxxxxxxxxxxxx…│"), text)
    }

    func testControlCharactersOfATextScoreNeverReachTheTerminal() {
        let players = [
            makePlayer(1, "Escape", .text("\u{1B}[31m\u{1B}]0;title\u{7}")),
            makePlayer(2, "Lines", .text("a\nb\r\u{85}c")),
            makePlayer(3, "Wide", .text("日本語\u{200B}")),
            makePlayer(4, "Arthur", 794),
        ]
        for width in [12, 24, 40, 80] {
            let text = hallOfFameRender(makeLoadedState(players, width: width, height: 12)).text
            let controls = Array(text.unicodeScalars.filter { $0 != "\n" && $0.properties.generalCategory == .control })
            XCTAssertEqual(controls, [], text)
            if width >= 40 {
                // The other rows keep their score column.
                XCTAssertTrue(text.contains(" 794 │"), text)
            }
        }
    }

    func testEditFormShowsAnOddScoreAndSavesAnInteger() {
        var form = EditForm(player: makePlayer(1, "Tiny", .real(-1e30)))
        XCTAssertEqual(form.score, "-1.0e+30")
        XCTAssertEqual(form.validated(), .failure(EditForm.ValidationError("Score must be an integer")))
        form.score = "12"
        XCTAssertEqual(form.validated(), .success(makePlayer(1, "Tiny", 12)))
    }
}
