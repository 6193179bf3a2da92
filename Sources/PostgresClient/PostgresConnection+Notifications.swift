import CLibPQ

/// A notification sent by `NOTIFY channel, 'payload'` (or
/// `pg_notify(channel, payload)`) to a connection that runs
/// `LISTEN channel`.
package struct PostgresNotification: Sendable, Equatable {
    package var channel: String
    package var payload: String
    /// The server process of the sending session (its `pg_backend_pid()`):
    /// equal to ``PostgresConnection/processID`` for a connection's own.
    package var processID: Int32

    package init(channel: String, payload: String, processID: Int32) {
        self.channel = channel
        self.payload = payload
        self.processID = processID
    }
}

// MARK: - Notifications

extension PostgresConnection {
    /// The notifications that arrived since the last call, oldest first;
    /// reads what is waiting on the socket without blocking.
    package func notifications() throws -> [PostgresNotification] {
        try withServer {
            try link.withLock { link in
                guard PQconsumeInput(link.connection) != 0 else {
                    throw PostgresError.connectionFailure(link.connection, secrets: link.secrets)
                }
                var notifications: [PostgresNotification] = []
                while let notify = PQnotifies(link.connection) {
                    defer { PQfreemem(notify) }
                    notifications.append(PostgresNotification(
                        channel: notify.pointee.relname.map { String(cString: $0) } ?? "",
                        payload: notify.pointee.extra.map { String(cString: $0) } ?? "",
                        processID: notify.pointee.be_pid))
                }
                return notifications
            }
        }
    }
}
