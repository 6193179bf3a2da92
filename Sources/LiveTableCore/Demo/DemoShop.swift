import Dispatch
import Foundation
import GRDB

/// The file of the demo's viewer part: a shop's orders, in a temporary
/// directory, made and then written by a connection of its own, as
/// another program would (livetable never writes the files it views).
package final class DemoShop: @unchecked Sendable {
    // @unchecked Sendable: `timer`, `tick` and `isClosed` are only touched
    // on `queue`.

    /// The temporary directory that holds the file.
    package let directory: URL
    /// The database file.
    package let path: String

    private let writer: DatabaseQueue
    private let queue = DispatchQueue(label: "livetable.demo.shop")
    private var timer: (any DispatchSourceTimer)?
    private var tick = 0
    private var isClosed = false

    private static let customers = [
        "Arthur", "Barbara", "Chiara", "David", "Elena", "Fatima", "Gilbert", "Hassan", "Irene", "Julie",
        "Karl", "Liz", "Masashi", "Noam", "Oleg", "Patricia", "Quinn", "Rachel", "Susie", "Zoé",
    ]
    private static let items = [
        "Teapot", "Notebook", "Lamp", "Backpack", "Umbrella", "Headphones", "Mug", "Bicycle bell",
        "Chess set", "Plant pot",
    ]
    private static let statuses = ["new", "paid", "packed", "shipped", "delivered"]

    private init(directory: URL, path: String, writer: DatabaseQueue) {
        self.directory = directory
        self.path = path
        self.writer = writer
    }

    /// Creates `directory` and, in it, `shop.sqlite` with `orders` orders.
    package static func make(in directory: URL, orders: Int = 120) throws -> DemoShop {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("shop.sqlite").path
        do {
            var configuration = Configuration()
            configuration.busyMode = .timeout(5)
            let writer = try DatabaseQueue(path: path, configuration: configuration)
            try writer.write { db in
                try db.execute(sql: """
                    CREATE TABLE \(DemoScript.viewerTable)(
                        id INTEGER PRIMARY KEY, customer TEXT NOT NULL, item TEXT NOT NULL,
                        quantity INTEGER NOT NULL, total REAL NOT NULL, status TEXT NOT NULL)
                    """)
                for index in 0..<orders {
                    try insertOrder(db, index, status: statuses[(index * 7) % (statuses.count - 1) + 1])
                }
            }
            return DemoShop(directory: directory, path: path, writer: writer)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// Commits one change every `interval` seconds, on a queue of its own,
    /// until `close()`. A write that fails (the file locked for longer than
    /// 5 seconds) is skipped.
    package func startWriting(every interval: TimeInterval) {
        queue.async { [self] in
            guard !isClosed, timer == nil else { return }
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now() + interval, repeating: interval)
            timer.setEventHandler { [weak self] in self?.writeNext() }
            timer.resume()
            self.timer = timer
        }
    }

    /// Stops writing, closes the connection and removes the directory.
    /// Safe to call more than once.
    package func close() {
        queue.sync {
            guard !isClosed else { return }
            isClosed = true
            timer?.cancel()
            timer = nil
            try? writer.close()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    // MARK: - Writing (queue)

    private func writeNext() {
        guard !isClosed else { return }
        let tick = self.tick
        self.tick += 1
        try? writer.write { db in
            if tick % 2 == 0 {
                // An order of the first rows moves on.
                let id = 1 + (tick / 2 * 3) % 8
                try db.execute(sql: """
                    UPDATE \(DemoScript.viewerTable) SET status = CASE status
                        WHEN 'new' THEN 'paid' WHEN 'paid' THEN 'packed' WHEN 'packed' THEN 'shipped'
                        WHEN 'shipped' THEN 'delivered' ELSE 'new' END
                    WHERE id = ?
                    """, arguments: [id])
            } else {
                let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(DemoScript.viewerTable)") ?? 0
                try Self.insertOrder(db, count, status: "new")
            }
        }
    }

    private static func insertOrder(_ db: Database, _ index: Int, status: String) throws {
        let quantity = 1 + (index * 5) % 4
        let price = Double(5 + (index * 37) % 95) + 0.99
        try db.execute(
            sql: "INSERT INTO \(DemoScript.viewerTable)(customer, item, quantity, total, status) VALUES (?, ?, ?, ?, ?)",
            arguments: [
                customers[(index * 7) % customers.count], items[(index * 3) % items.count],
                quantity, (Double(quantity) * price * 100).rounded() / 100, status,
            ])
    }
}
