import XCTest
@testable import LiveTableCore

final class KeyBindingTests: XCTestCase {
    func testTableMatchesTheDocumentedKeys() {
        XCTAssertEqual(keyBindings.map(\.keys), [
            "↑ ↓ / k j",
            "PgUp PgDn, Home End / g G",
            "n or +",
            "e or Enter",
            "d or Delete",
            "D",
            "r",
            "s",
            "o",
            "H",
            "?",
            "Ctrl-Z",
            "q, Ctrl-C",
        ])
    }

    func testEachKeyTriggersItsAction() {
        let expected: [Key: HallOfFameAction] = [
            .up: .moveUp, .character("k"): .moveUp,
            .down: .moveDown, .character("j"): .moveDown,
            .pageUp: .pageUp, .pageDown: .pageDown,
            .home: .jumpToFirst, .character("g"): .jumpToFirst,
            .end: .jumpToLast, .character("G"): .jumpToLast,
            .character("n"): .insert, .character("+"): .insert,
            .character("e"): .edit, .enter: .edit,
            .character("d"): .delete, .delete: .delete,
            .character("D"): .deleteAll,
            .character("r"): .refresh,
            .character("s"): .stressTest,
            .character("o"): .toggleOrdering,
            .character("H"): .toggleHighlight,
            .character("?"): .help,
            .control("z"): .suspend,
            .character("q"): .quit, .control("c"): .quit,
        ]
        for (key, action) in expected {
            XCTAssertEqual(KeyBinding.action(for: key), action, "\(key)")
        }
        // And no other key is bound.
        let bound = keyBindings.flatMap(\.actions.keys)
        XCTAssertEqual(Set(bound), Set(expected.keys))
    }

    func testNoKeyIsBoundTwice() {
        let bound = keyBindings.flatMap(\.actions.keys)
        XCTAssertEqual(bound.count, Set(bound).count)
    }

    func testEveryActionHasAKey() {
        let actions: [HallOfFameAction] = [
            .moveUp, .moveDown, .pageUp, .pageDown, .jumpToFirst, .jumpToLast, .insert, .edit,
            .delete, .deleteAll, .refresh, .stressTest, .toggleOrdering, .toggleHighlight, .help, .suspend,
            .quit,
        ]
        let bound = Set(keyBindings.flatMap(\.actions.values))
        XCTAssertEqual(bound, Set(actions))
    }

    func testUnboundKeysHaveNoAction() {
        for key in [Key.character("x"), .character("K"), .character("Q"), .left, .right, .tab, .backspace, .control("d")] {
            XCTAssertNil(KeyBinding.action(for: key), "\(key)")
        }
    }

    func testFooterHintsNameAKeyOfTheirRow() {
        for binding in keyBindings {
            guard let hint = binding.hint else { continue }
            let key = String(hint.split(separator: " ")[0])
            XCTAssertTrue(binding.keys.contains(key), hint)
        }
        XCTAssertEqual(keyBindings.compactMap(\.hint), [
            "n new", "e edit", "d del", "D del all", "r refresh", "s stress", "o order", "? help", "q quit",
        ])
    }
}
