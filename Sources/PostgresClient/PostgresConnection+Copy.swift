import CLibPQ
import Foundation
#if canImport(Glibc)
import Glibc
#endif

// MARK: - COPY … TO STDOUT

extension PostgresConnection {
    /// Runs a `COPY … TO STDOUT` statement and calls `body` with each row
    /// of its output as the server sends it (libpq's `PQgetCopyData`: one
    /// whole row a call, its line end included), in constant memory. What
    /// psql does for `\copy` and `COPY … TO STDOUT`: the server formats the
    /// values, no result is built.
    ///
    /// `timeout` bounds each wait for the next row, as for
    /// ``forEachRow(_:_:timeout:columns:_:)``. ``cancel()`` stops it on the
    /// server. An error that `body` throws cancels the statement, and is
    /// the one thrown once the connection is ready for the next.
    package func copyOut(
        _ sql: String, timeout: TimeInterval? = nil, _ body: (UnsafeRawBufferPointer) throws -> Void) throws
    {
        try withServer {
            let start = try link.withLock { link -> Result<Void, PostgresError> in
                try send(sql, [], on: &link)
                try awaitResult(&link, deadline: timeout.map { Deadline(seconds: $0) })
                // The statement's first result: COPY_OUT, or why it failed.
                guard let result = PQgetResult(link.connection) else { return .failure(Self.notACopy) }
                defer { PQclear(result) }
                guard PQresultStatus(result) == PGRES_COPY_OUT else {
                    return outcome(of: result, link).flatMap { _ in .failure(Self.notACopy) }
                }
                link.streamingThread = pthread_self()
                return .success(())
            }
            guard case .success = start else {
                // The results after it are read all the same.
                _ = try endOfStatement(timeout: timeout)
                return try start.get()
            }
            defer { link.withLock { $0.streamingThread = nil } }
            var callerError: (any Error)?
            while let row = try nextCopyRow(timeout: timeout) {
                defer { PQfreemem(UnsafeMutableRawPointer(mutating: row.baseAddress)) }
                guard callerError == nil else { continue }
                do {
                    try body(row)
                } catch {
                    callerError = error
                    side.cancel(markingCanceled: false)
                }
            }
            let ended = try endOfStatement(timeout: timeout)
            if let callerError { throw callerError }
            try ended.get()
        }
    }

    private static let notACopy = PostgresError(kind: .usage, message: "the statement is no COPY … TO STDOUT")

    /// The next row of the COPY, nil after the last; its buffer is libpq's,
    /// freed with `PQfreemem`.
    private func nextCopyRow(timeout: TimeInterval?) throws -> UnsafeRawBufferPointer? {
        try link.withLock { link in
            let connection = link.connection
            let deadline = timeout.map { Deadline(seconds: $0) }
            while true {
                var buffer: UnsafeMutablePointer<CChar>?
                let length = PQgetCopyData(connection, &buffer, 1)
                if length > 0, let buffer {
                    return UnsafeRawBufferPointer(start: buffer, count: Int(length))
                }
                // -1: the COPY ended; -2: it failed, which PQgetResult says.
                guard length == 0 else { return nil }
                var descriptor = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
                let ready = poll(&descriptor, 1, deadline?.milliseconds ?? -1)
                if ready < 0, errno == EINTR { continue }
                if ready == 0 {
                    link.abandoned = true
                    throw PostgresError(
                        kind: .connection,
                        message: "no answer from the server for \(String(format: "%g", deadline?.seconds ?? 0)) s")
                }
                guard PQconsumeInput(connection) != 0 else { return nil }
            }
        }
    }

    /// Reads the results after the COPY's data, up to the last (libpq
    /// takes no statement before): the first failure, if any.
    private func endOfStatement(timeout: TimeInterval?) throws -> Result<Void, PostgresError> {
        try link.withLock { link in
            var outcome: Result<Void, PostgresError> = .success(())
            while true {
                try awaitResult(&link, deadline: timeout.map { Deadline(seconds: $0) })
                guard let result = PQgetResult(link.connection) else { break }
                defer { PQclear(result) }
                if case .success = outcome, case let .failure(error) = self.outcome(of: result, link) {
                    outcome = .failure(error)
                }
            }
            return outcome
        }
    }
}
