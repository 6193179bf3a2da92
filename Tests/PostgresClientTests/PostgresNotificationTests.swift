import Foundation
import PostgresClient
import XCTest

/// LISTEN / NOTIFY through notifications() and the socket.
final class PostgresNotificationTests: XCTestCase {
    func testNotifyReachesAListener() throws {
        let url = try SharedCluster.get().url
        let listener = try PostgresConnection(url)
        let notifier = try PostgresConnection(url)
        _ = try listener.execute("LISTEN tracks")
        XCTAssertEqual(try listener.notifications(), [])
        _ = try notifier.execute("SELECT pg_notify('tracks', $1)", ["row 42"])
        _ = try notifier.execute("NOTIFY other")

        // Wait on the socket, as a DispatchSource would.
        var received: [PostgresNotification] = []
        let deadline = Date(timeIntervalSinceNow: 10)
        while received.isEmpty, Date() < deadline {
            var descriptor = pollfd(fd: listener.socket, events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, 100)
            received += try listener.notifications()
        }
        XCTAssertEqual(received, [
            PostgresNotification(channel: "tracks", payload: "row 42", processID: notifier.processID),
        ])
    }
}
