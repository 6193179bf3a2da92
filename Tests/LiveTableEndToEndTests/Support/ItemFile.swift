import Foundation
import XCTest

/// The `item` table that the viewer's suites view: a file that Python's
/// sqlite3 module made, as a file livetable did not create, and the
/// whole-row view that reads a row's name back from the screen.
extension LiveTableTestCase {
    /// Makes a file in the test's directory holding
    /// `item(id INTEGER PRIMARY KEY, name TEXT, price INTEGER)`, in
    /// rollback-journal mode, with Python's sqlite3 module.
    ///
    /// For example, 50 rows "item 001"… priced 10…500:
    ///
    /// ```swift
    /// let file = try makeItemFile("log.sqlite", rows: 50)
    /// ```
    ///
    /// - parameter name: The file's name.
    /// - parameter rows: The number of rows, of ids 1…rows.
    /// - parameter nameDigits: The digits of the number in each name
    ///   ("item 001" for 3).
    /// - parameter price: The price of row `i`, a Python expression of `i`.
    /// - parameter indexOnPrice: Whether `item_price` indexes the price.
    func makeItemFile(
        _ name: String,
        rows: Int,
        nameDigits: Int = 3,
        price: String = "i * 10",
        indexOnPrice: Bool = false) throws -> URL
    {
        let file = directory.appendingPathComponent(name)
        try Shell.python("""
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1])
            c.execute("CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price INTEGER)")
            if sys.argv[4] == "1":
                c.execute("CREATE INDEX item_price ON item(price)")
            c.executemany("INSERT INTO item(name, price) VALUES (?, ?)",
                          [("item %0*d" % (int(sys.argv[3]), i), \(price)) for i in range(1, int(sys.argv[2]) + 1)])
            c.commit()
            c.close()
            """, [file.path, String(rows), String(nameDigits), indexOnPrice ? "1" : "0"])
        return file
    }

    /// The value of `column` ("name" unless given) in the whole-row view
    /// of the selected row (Enter), which is then closed again.
    func selectedName(_ session: TmuxSession, column: String = "name") throws -> String {
        try session.send("Enter")
        // The box and its line: a capture can catch the overlay half drawn.
        let screen = try session.waitForScreen("the whole row with its \(column)") { screen in
            screen.contains("┌ Row") && screen.components(separatedBy: "\n").contains { $0.hasPrefix("│ \(column) ") }
        }
        try session.send("Enter")
        try session.waitForScreen("the row closed") { !$0.contains("┌ Row") }
        let line = try XCTUnwrap(screen.components(separatedBy: "\n").first { $0.hasPrefix("│ \(column) ") })
        return line.dropFirst(2).dropFirst(column.count).trimmingCharacters(in: CharacterSet(charactersIn: " │"))
    }
}
