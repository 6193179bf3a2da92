import CLibPQ
import Foundation
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Statements

extension PostgresConnection {
    /// Runs one statement and returns its whole result.
    package func execute(
        _ sql: String, _ parameters: [String?] = [], timeout: TimeInterval? = nil) throws -> PostgresResult
    {
        try withServer {
            try link.withLock { link in
                try send(sql, parameters, on: &link)
                let deadline = timeout.map { Deadline(seconds: $0) }
                // Every result is read, up to the last (NULL): libpq takes no
                // new statement before. The first outcome is the statement's.
                var outcome: Result<PostgresResult, PostgresError>?
                while true {
                    try awaitResult(&link, deadline: deadline)
                    guard let result = PQgetResult(link.connection) else { break }
                    defer { PQclear(result) }
                    if outcome == nil { outcome = self.outcome(of: result, link) }
                }
                guard let outcome else {
                    throw PostgresError.from(
                        result: nil, connection: link.connection, secrets: link.secrets, canceled: side.wasCanceled)
                }
                return try outcome.get()
            }
        }
    }

    /// Runs one statement and calls `body` with each row as it arrives, in
    /// constant memory (libpq's single-row mode): for an export or a count
    /// of a big table. `body` runs out of `link`, on rows already read: it
    /// may read the connection's facts, but a statement it starts is refused.
    package func forEachRow(
        _ sql: String, _ parameters: [String?] = [], timeout: TimeInterval? = nil,
        columns: ([PostgresColumn]) throws -> Void = { _ in },
        _ body: (PostgresRow) throws -> Bool) throws
    {
        try withServer {
            try link.withLock { link in
                try send(sql, parameters, on: &link)
                // Without single-row mode (refused only when misused) the
                // rows come in one result, read below all the same.
                _ = PQsetSingleRowMode(link.connection)
                link.streamingThread = pthread_self()
            }
            defer { link.withLock { $0.streamingThread = nil } }
            var stream = RowStream()
            // Every result is read, even after a stop: libpq takes no new
            // statement until the last one (NULL). Each wait has its own
            // deadline: the time between two rows, not the statement's.
            while let next = try nextResult(timeout: timeout, stopped: stream.isStopped) {
                guard case let .rows(rows) = next else {
                    if case let .failed(error) = next { stream.stop(with: error) }
                    continue
                }
                defer { PQclear(rows.result) }
                do {
                    try stream.take(rows.result, columns: columns, body: body)
                } catch {
                    stream.stop(with: error)
                }
                if stream.stoppedByCaller {
                    side.cancel(markingCanceled: false)
                }
            }
            if let error = stream.error { throw error }
        }
    }

    /// Sends a statement, after the checks that a connection takes one.
    func send(_ sql: String, _ parameters: [String?], on link: inout Link) throws {
        try refuseIfAbandoned(link)
        try beginStatement(&link)
        // Sent without waiting, then awaited in poll(2) with the deadline:
        // what PQexecParams does, but for the deadline.
        let connection = link.connection
        let sent = try withCStrings(parameters) { values in
            PQsendQueryParams(connection, sql, Int32(values.count), nil, values, nil, nil, 0)
        }
        guard sent != 0 else {
            throw PostgresError.from(
                result: nil, connection: connection, secrets: link.secrets, canceled: side.wasCanceled)
        }
    }

    /// What a stream reads next, under `link`.
    private enum StreamStep {
        /// Rows for the body, which reads them out of `link`.
        case rows(StreamedResult)
        /// The statement failed: the results that follow are read all the same.
        case failed(PostgresError)
        /// A result with no rows, or one that comes after a stop.
        case skipped
    }

    /// The next result of the statement that streams, or nil after the last.
    private func nextResult(timeout: TimeInterval?, stopped: Bool) throws -> StreamStep? {
        try link.withLock { link in
            try awaitResult(&link, deadline: timeout.map { Deadline(seconds: $0) })
            guard let result = PQgetResult(link.connection) else { return nil }
            let status = PQresultStatus(result)
            if !stopped, status == PGRES_SINGLE_TUPLE || status == PGRES_TUPLES_OK {
                return .rows(StreamedResult(result: result))
            }
            defer { PQclear(result) }
            guard !stopped, case let .failure(error) = outcome(of: result, link) else { return .skipped }
            return .failed(error)
        }
    }
}

/// A result of single-row mode, handed from `link` to the body.
// @unchecked Sendable: a PGresult stands alone once libpq gave it, and
// libpq lets it cross threads; only the stream's thread reads it.
private struct StreamedResult: @unchecked Sendable {
    let result: OpaquePointer
}

extension PostgresConnection {
    /// Waits until libpq has a result (or the end of the results) to give
    /// without blocking, reading the socket as the server answers.
    func awaitResult(_ link: inout Link, deadline: Deadline?) throws {
        let connection = link.connection
        while PQisBusy(connection) != 0 {
            var descriptor = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, deadline?.milliseconds ?? -1)
            if ready < 0 {
                if errno == EINTR { continue }
                // A closed or bad socket: libpq's next read says how.
            } else if ready == 0 {
                link.abandoned = true
                throw PostgresError(
                    kind: .connection,
                    message: "no answer from the server for \(String(format: "%g", deadline?.seconds ?? 0)) s")
            }
            // A failed read leaves an error result for PQgetResult.
            guard PQconsumeInput(connection) != 0 else { return }
        }
    }

    func outcome(of result: OpaquePointer, _ link: Link) -> Result<PostgresResult, PostgresError> {
        switch PQresultStatus(result) {
        case PGRES_TUPLES_OK, PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
            return .success(PostgresResult(result))
        case PGRES_COPY_IN, PGRES_COPY_OUT, PGRES_COPY_BOTH:
            // The results that follow end the COPY.
            abandonCopy(link.connection, status: PQresultStatus(result))
            return .failure(PostgresError(kind: .usage, message: "COPY to or from the client is not supported"))
        default:
            return .failure(PostgresError.from(
                result: result, connection: link.connection, secrets: link.secrets, canceled: side.wasCanceled))
        }
    }

    /// Readies the connection for a statement, after the cancels sent
    /// before it ended; abandons it when one did not end in time, since
    /// it could stop the statement instead (reported as a timeout).
    func beginStatement(_ link: inout Link) throws {
        guard side.beginStatement() else {
            link.abandoned = true
            throw PostgresError(
                kind: .connection,
                message: "a cancel sent to the server did not end: the connection was abandoned")
        }
    }

    /// A connection left mid-statement by a deadline takes no statement.
    func refuseIfAbandoned(_ link: Link) throws {
        if link.abandoned {
            throw PostgresError(
                kind: .connection,
                message: "the server did not answer in time: the connection was abandoned")
        }
    }
}

private struct RowStream {
    var columnsGiven = false
    var isStopped = false
    /// True when the caller stopped (false returned, or an error thrown by
    /// the caller's closures): the statement must be canceled.
    var stoppedByCaller = false
    var error: Error?

    mutating func take(
        _ result: OpaquePointer, columns: ([PostgresColumn]) throws -> Void, body: (PostgresRow) throws -> Bool) throws
    {
        if !columnsGiven {
            columnsGiven = true
            try callerStep { try columns(describeColumns(of: result)) }
        }
        for index in 0..<PQntuples(result) {
            let keepGoing = try callerStep { try body(PostgresRow(result: result, index: index)) }
            if !keepGoing {
                isStopped = true
                stoppedByCaller = true
                return
            }
        }
    }

    /// Runs a caller's closure; its error stops the stream as a caller's.
    private mutating func callerStep<T>(_ step: () throws -> T) throws -> T {
        do {
            return try step()
        } catch {
            stoppedByCaller = true
            throw error
        }
    }

    mutating func stop(with error: Error) {
        isStopped = true
        if self.error == nil { self.error = error }
    }
}

// MARK: - libpq helpers

func withCStrings<T>(_ strings: [String?], _ body: ([UnsafePointer<CChar>?]) throws -> T) throws -> T {
    // A C string ends at its first NUL: a value holding one would be cut
    // silently. PostgreSQL's text cannot hold it anyway.
    if strings.contains(where: { $0?.utf8.contains(0) == true }) {
        throw PostgresError(kind: .usage, message: "a parameter holds a NUL character, which PostgreSQL text cannot hold")
    }
    let copies = strings.map { $0.map { strdup($0) } ?? nil }
    defer { copies.forEach { free($0) } }
    return try body(copies.map { UnsafePointer($0) })
}

/// Leaves the COPY state a statement put the connection in, so that the
/// next statement runs: the rows of a COPY TO STDOUT are read and dropped,
/// a COPY FROM STDIN is ended with an error.
func abandonCopy(_ connection: OpaquePointer, status: ExecStatusType) {
    if status == PGRES_COPY_IN || status == PGRES_COPY_BOTH {
        _ = PQputCopyEnd(connection, "COPY from the client is not supported")
    }
    if status == PGRES_COPY_OUT || status == PGRES_COPY_BOTH {
        var buffer: UnsafeMutablePointer<CChar>?
        while PQgetCopyData(connection, &buffer, 0) > 0 {
            PQfreemem(buffer)
        }
    }
}
