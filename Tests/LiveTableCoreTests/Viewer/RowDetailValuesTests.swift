import Foundation
import GRDB
import XCTest
@testable import LiveTableCore

/// The row view shows values a person can read: a JSON object or array
/// indented, a BLOB that is UTF-8 text as that text, marked as a BLOB.
final class RowDetailValuesTests: XCTestCase {
    private func values(_ value: DatabaseValue, width: Int = 60) -> [String] {
        RowDetail.lines(names: ["v"], values: [value], width: width).map(\.value)
    }

    func testAJSONObjectIsIndentedWithItsKeysInTheirOrder() {
        XCTAssertEqual(values(#"{"z": 1, "a": [1, 2, {"k": "x, y: {z}"}], "e": {}, "n": null}"#.databaseValue), [
            "{",
            #"  "z": 1,"#,
            #"  "a": ["#,
            "    1,",
            "    2,",
            "    {",
            #"      "k": "x, y: {z}""#,
            "    }",
            "  ],",
            #"  "e": {},"#,
            #"  "n": null"#,
            "}",
        ])
    }

    func testAStringWithEscapedQuotesStaysWhole() {
        XCTAssertEqual(values(#"["a \"quoted\", [b]", []]"#.databaseValue), [
            "[",
            #"  "a \"quoted\", [b]","#,
            "  []",
            "]",
        ])
    }

    func testTextThatIsNotAJSONObjectOrArrayIsShownAsIs() {
        XCTAssertEqual(values("{not json".databaseValue), ["{not json"])
        XCTAssertEqual(values("42".databaseValue), ["42"])
        XCTAssertEqual(values(#""just a string""#.databaseValue), [#""just a string""#])
    }

    func testARawControlCharacterIsNotJSONAndStaysEscaped() {
        let text = "[\"a\u{1B}b\"]"
        XCTAssertEqual(values(text.databaseValue), [CellText.escaped(text)])
        XCTAssertEqual(values(#"["a\u001bb"]"#.databaseValue), ["[", #"  "a\u001bb""#, "]"])
    }

    func testABlobOfUTF8TextIsShownAsTextMarkedAsABlob() {
        XCTAssertEqual(values(Data("héllo\nworld".utf8).databaseValue), ["<12 bytes> of text:", "héllo", "world"])
    }

    func testABlobThatIsNotTextIsHexadecimal() {
        XCTAssertEqual(values(Data([0xFF, 0x00, 0x41]).databaseValue), ["<3 bytes> ff0041"])
        // Valid UTF-8, but a NUL: bytes, not text.
        XCTAssertEqual(values(Data([0x41, 0x00]).databaseValue), ["<2 bytes> 4100"])
    }

    func testLongTextStillWraps() {
        XCTAssertEqual(values("aaaa bbbb cccc".databaseValue, width: 12), ["aaaa ", "bbbb ", "cccc"])
    }
}
